import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { callerAs } from '@/test/callers';
import { appRouter } from './index';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});

/** Row counts of every table, to prove a refused call wrote nothing. */
async function snapshot(db: Database) {
  const tables = await db.sql<
    { t: string }[]
  >`select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`;
  const counts: Record<string, number> = {};
  for (const { t } of tables) counts[t] = (await db.sql.unsafe(`select count(*)::int as n from "${t}"`))[0]!.n as number;
  return counts;
}

const badInputs: unknown[] = [{ __unexpected: 1, id: 42, name: 12345, page: -1, username: '!', config: { groupSize: 0 } }, 'not-an-object', null];

describe('every procedure validates its input', () => {
  it('bad input → BAD_REQUEST with a message naming the field, and nothing written', async () => {
    const admin = await callerAs(database.db, 'admin');
    await admin.runs.create({ name: 'existing', config: {} });
    const before = await snapshot(database);
    const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { inputs: unknown[]; type: string } }>);
    let checked = 0;
    for (const [path, proc] of procedures) {
      if (proc._def.inputs.length === 0) continue; // takes no input
      for (const bad of badInputs) {
        const [ns, name] = path.split('.') as [string, string];
        const fn = (admin as unknown as Record<string, Record<string, (i: unknown) => Promise<unknown>>>)[ns]![name]!;
        const err = await fn(bad).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, `${path}(${JSON.stringify(bad)}) should be refused`).toBeInstanceOf(TRPCError);
        expect((err as TRPCError).code, path).toBe('BAD_REQUEST');
        expect((err as TRPCError).message.length, path).toBeGreaterThan(5);
      }
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
    expect(await snapshot(database)).toEqual(before);
  });

  it('run config errors name the field and the bound', async () => {
    const admin = await callerAs(database.db, 'admin');
    const err = await admin.runs.create({ name: 'x', config: { groupSize: 0, topP: 2, algorithm: 'dqn' as 'grpo' } }).catch((e) => e);
    expect(err).toBeInstanceOf(TRPCError);
    const issues = (err as TRPCError).cause as unknown as { issues: { path: (string | number)[] }[] };
    const paths = issues.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['config.groupSize', 'config.topP', 'config.algorithm']));
  });
});
