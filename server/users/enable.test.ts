import { beforeAll, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { login } from '@/server/auth/sessions';
import { createToken } from '@/server/tokens/service';
import { identify } from '@/server/auth/identity';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

describe('users.enable (real Postgres)', () => {
  it('lets a disabled user sign in again, audited; their tokens stay revoked', async () => {
    const { db } = database;
    const admin = await callerAs(db, 'admin', 'boss');
    await admin.users.create({ username: 'dana', password: 'dana-password-1', role: 'operator' });
    const token = await createToken(db, 'dana', 'ci', 'test');
    const bearer = new Headers({ authorization: `Bearer ${token.token}` });
    expect((await identify(db, bearer))?.username).toBe('dana');
    await admin.users.disable({ username: 'dana' });
    await expect(login(db, 'dana', 'dana-password-1', 'test')).rejects.toThrow(/Wrong username or password/);

    expect(await admin.users.enable({ username: 'dana' })).toEqual({ username: 'dana', disabled: false });
    expect((await admin.users.list()).find((u) => u.username === 'dana')!.disabledAt).toBeNull();
    expect((await login(db, 'dana', 'dana-password-1', 'test')).user.username).toBe('dana');
    expect(await identify(db, bearer)).toBeNull();

    const rows = (await admin.audit.list({ action: 'user.enable' })).items;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: 'user:boss', targetType: 'user', details: { username: 'dana' } });
  });

  it('refuses an active user, an unknown one, and non-admins, saying why', async () => {
    const { db } = database;
    const admin = await callerAs(db, 'admin');
    await admin.users.create({ username: 'erin', password: 'erin-password-1', role: 'viewer' });
    const err = (await admin.users.enable({ username: 'erin' }).catch((e: unknown) => e)) as TRPCError;
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toContain('not disabled');
    expect(((await admin.users.enable({ username: 'nobody' }).catch((e: unknown) => e)) as TRPCError).code).toBe('NOT_FOUND');
    const operator = await callerAs(db, 'operator');
    expect(((await operator.users.enable({ username: 'erin' }).catch((e: unknown) => e)) as TRPCError).code).toBe('FORBIDDEN');
  });
});
