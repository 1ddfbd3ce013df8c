import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOB_QUEUES, JOBS_CHANNEL, PREEMPT_CHANNEL, SCHEDULER_CHANNEL } from './queues';

// SQL cannot import core/queues.ts, so the names the migrations spell by hand are checked here:
// a trigger notifying a channel nobody listens on, or enqueueing to a queue no handler
// consumes, fails nothing at run time.
const migrations = path.resolve(__dirname, '../db/migrations');
const sql = fs
  .readdirSync(migrations)
  .filter((f) => f.endsWith('.sql'))
  .map((f) => ({ file: f, text: fs.readFileSync(path.join(migrations, f), 'utf8') }));

describe('names the migrations spell by hand', () => {
  it('notify only the channels in core/queues.ts', () => {
    const channels: string[] = [JOBS_CHANNEL, SCHEDULER_CHANNEL, PREEMPT_CHANNEL];
    const used = sql.flatMap(({ file, text }) => [...text.matchAll(/pg_notify\(\s*'([^']+)'/gi)].map((m) => `${file}: ${m[1]}`));
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((u) => !channels.includes(u.split(': ')[1]!))).toEqual([]);
  });

  it('enqueue only to the job queues in core/queues.ts', () => {
    const queues: string[] = Object.values(JOB_QUEUES);
    const used = sql.flatMap(({ file, text }) =>
      [...text.matchAll(/insert\s+into\s+jobs\s*\(\s*queue\b[^)]*\)\s*values\s*\(\s*'([^']+)'/gi)].map((m) => `${file}: ${m[1]}`),
    );
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter((u) => !queues.includes(u.split(': ')[1]!))).toEqual([]);
  });
});
