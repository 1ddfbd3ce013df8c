/** What each role may do in the console; the server enforces the same rules in tRPC middleware. */
export type Role = 'admin' | 'operator' | 'reviewer' | 'viewer';

export const roles: Role[] = ['admin', 'operator', 'reviewer', 'viewer'];

export const canOperateRuns = (role: string | undefined) => role === 'admin' || role === 'operator';
export const isAdmin = (role: string | undefined) => role === 'admin';

export const roleDescriptions: Record<Role, string> = {
  admin: 'everything, including users, tokens and audit',
  operator: 'launch and control runs',
  reviewer: 'view runs, spot-check episodes',
  viewer: 'read only',
};
