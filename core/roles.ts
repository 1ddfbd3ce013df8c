import { z } from 'zod';

/**
 * User roles and what each may do: the one table the server's role middleware
 * (server/trpc.ts), the console (nav, admin-only pages, run actions, review pages) and the
 * database enum (db/schema/auth.ts) all read, so a role or a permission changes in one place.
 * Imports nothing from the project.
 */
export const ROLES = ['admin', 'operator', 'reviewer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const roleSchema = z.enum(ROLES);

export const roleDescriptions: Record<Role, string> = {
  admin: 'everything, including users, tokens and audit',
  operator: 'launch and control runs',
  reviewer: 'view runs, spot-check episodes',
  viewer: 'read only',
};

/** What a caller may do; each tRPC procedure kind and each console control needs one of these. */
export const CAPABILITIES = ['read', 'operateRuns', 'review', 'manageUsers'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** The roles holding each capability, in the order refusals name them ("ask an admin for admin or operator access"). */
export const rolesWith: Record<Capability, readonly Role[]> = {
  read: ROLES,
  operateRuns: ['admin', 'operator'],
  review: ['admin', 'reviewer'],
  manageUsers: ['admin'],
};

/** What a capability allows, as the end of "your role (viewer) cannot …". */
export const capabilityDescriptions: Record<Capability, string> = {
  read: 'read',
  operateRuns: 'launch or change runs',
  review: 'review rewards',
  manageUsers: 'manage users and settings',
};

/** Whether `role` holds `capability`; an unknown or missing role (signed out) holds none. */
export function can(role: string | null | undefined, capability: Capability): boolean {
  return role != null && (rolesWith[capability] as readonly string[]).includes(role);
}
