import { describe, expect, it } from 'vitest';
import { freshDatabase, ownerConnection } from '@/test/database';

describe('migrations', () => {
  it('create every domain table and the append-only audit trigger', async () => {
    const database = await freshDatabase();
    const { sql } = database;
    const rows = await sql<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public'`;
    const names = rows.map((r) => r.table_name);
    for (const t of [
      'runs',
      'run_events',
      'task_suites',
      'tasks',
      'environments',
      'episodes',
      'turns',
      'rewards',
      'policy_versions',
      'sandboxes',
      'jobs',
      'workers',
      'metric_samples',
      'reviews',
      'audit_log',
      'users',
      'sessions',
      'api_tokens',
    ]) {
      expect(names).toContain(t);
    }
    await sql`insert into audit_log (at, actor, action, target_type, prev_hash, hash) values (now(), 'x', 'y', 'z', '', '')`;
    // The app role holds no UPDATE/DELETE on audit_log; even the owner is stopped by the trigger.
    const owner = ownerConnection(database).sql;
    await expect(owner`update audit_log set actor = 'evil'`).rejects.toThrow(/append-only/);
    await expect(owner`delete from audit_log`).rejects.toThrow(/append-only/);
  });
});
