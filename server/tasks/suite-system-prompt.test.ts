import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@/db/client';
import { freshDatabase } from '@/test/database';
import { toolCallFormat } from '@/lib/agent/tools/call-formats/registry';
import { defaultSystemPrompt } from '@/lib/agent/episode/system-prompt';
import { agentSystemPrompt } from '@/workers/rl/agent-episode';
import { callerAs } from '@/test/callers';
import { loadSuiteSystemPrompt, setSuiteSystemPrompt, taskSuiteSystemPrompt } from './suite-system-prompt';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => database?.close());

describe("a repository suite's system prompt", () => {
  it("is set with an audit row, reaches the suite's tasks, and a run's own prompt overrides it", async () => {
    const { db, sql } = database;
    const [suite] = await sql<{ id: string }[]>`insert into task_suites (name) values ('repos') returning id`;
    const [task] = await sql<{ id: string }[]>`
      insert into tasks (suite_id, external_id, language, prompt, entry_point, tests, split, environment_name, kind)
      values (${suite!.id}, 't1', 'python', 'fix it', '', '{"kind":"repo"}'::jsonb, 'train', 'repo', 'repo') returning id`;
    const format = toolCallFormat('hermes');
    expect(await taskSuiteSystemPrompt(db, task!.id)).toBeNull();
    expect(agentSystemPrompt({}, format, await taskSuiteSystemPrompt(db, task!.id))).toBe(defaultSystemPrompt(format));

    await setSuiteSystemPrompt(db, 'repos', '  You fix bugs in Django. Run the tests first.  ', 'admin');
    const suitePrompt = await taskSuiteSystemPrompt(db, task!.id);
    expect(suitePrompt).toBe('You fix bugs in Django. Run the tests first.');
    expect(await loadSuiteSystemPrompt(db, suite!.id)).toBe(suitePrompt);
    expect(agentSystemPrompt({}, format, suitePrompt)).toBe(suitePrompt);
    // the run's own wins over the suite's
    expect(agentSystemPrompt({ agentSystemPrompt: 'The run says so.' }, format, suitePrompt)).toBe('The run says so.');
    const [audit] = await sql<{ action: string; details: unknown }[]>`select action, details from audit_log where action = 'tasks.suite_system_prompt'`;
    expect(audit).toMatchObject({ details: { suite: 'repos', systemPrompt: { characters: 44 } } });

    await expect(setSuiteSystemPrompt(db, 'repos', '   ', 'admin')).rejects.toThrow(/empty/);
    await expect(setSuiteSystemPrompt(db, 'repos', 'x'.repeat(20_001), 'admin')).rejects.toThrow();
    await expect(setSuiteSystemPrompt(db, 'nope', 'x', 'admin')).rejects.toThrow(/no task suite "nope"/);
    await setSuiteSystemPrompt(db, 'repos', null, 'admin');
    expect(await taskSuiteSystemPrompt(db, task!.id)).toBeNull();
  });

  it('is set over the API by an operator (tasks.setSystemPrompt), not by a viewer', async () => {
    const { db, sql } = database;
    await sql`insert into task_suites (name) values ('api-repos')`;
    const operator = await callerAs(db, 'operator');
    const viewer = await callerAs(db, 'viewer');
    await expect(operator.tasks.setSystemPrompt({ suite: 'api-repos', systemPrompt: 'Read the failing test first.' })).resolves.toEqual({
      suite: 'api-repos',
      systemPrompt: 'Read the failing test first.',
    });
    const [row] = await sql<{ p: string | null }[]>`select system_prompt as p from task_suites where name = 'api-repos'`;
    expect(row!.p).toBe('Read the failing test first.');
    await expect(viewer.tasks.setSystemPrompt({ suite: 'api-repos', systemPrompt: null })).rejects.toThrow(/FORBIDDEN|not allowed|role/i);
    await expect(operator.tasks.setSystemPrompt({ suite: 'api-repos', systemPrompt: '' })).rejects.toThrow(/empty/);
    await operator.tasks.setSystemPrompt({ suite: 'api-repos', systemPrompt: null });
    const [cleared] = await sql<{ p: string | null }[]>`select system_prompt as p from task_suites where name = 'api-repos'`;
    expect(cleared!.p).toBeNull();
  });
});
