import type { Db } from '@/db/client';
import type { Role } from '@/core/roles';
import type { CurrentUser } from '@/server/auth/identity';
import { createCaller } from '@/server/routers';
import { createUser } from '@/server/users/service';

/** A tRPC caller acting as a real user row with `role` (same middleware as HTTP requests). */
export async function callerAs(db: Db, role: Role, username = `${role}-${Math.random().toString(36).slice(2, 7)}`) {
  const row = await createUser(db, { username, password: 'correct horse battery', role }, 'test:setup');
  const user: CurrentUser = { id: row.id, username, role, displayName: null, via: 'session' };
  return createCaller({ db, user });
}

export const anonymousCaller = (db: Db) => createCaller({ db, user: null });
