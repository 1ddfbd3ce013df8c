import fs from 'node:fs';
import path from 'node:path';
import { episodeSandboxLimits } from '@/core/run-config';
import { parseTaskFile } from '@/server/tasks/formats';
import { dataDir, envStoreDir } from '@/db/open-database';
import { ensureDefaultEnvironment } from '@/lib/sandbox/env/env-builtin';
import { SandboxManager } from '@/lib/sandbox/pool/manager';
import { scoreSolution } from '@/workers/rl/reward/reward';
import { CliError, output, type Command } from './args';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

export const rewardCommands: Command[] = [
  {
    name: 'reward score',
    summary: "score a solution against one task's tests in a sandbox",
    usage:
      'crucible reward score --tasks FILE --task ID --solution FILE [--format crucible|humaneval] [--runtime bwrap|oci|NAME] [--env NAME] [--test-timeout-ms N] [--json]',
    options: {
      tasks: { type: 'string' },
      task: { type: 'string' },
      solution: { type: 'string' },
      format: { type: 'string' },
      runtime: { type: 'string' },
      env: { type: 'string' },
      'test-timeout-ms': { type: 'string' },
      json: { type: 'boolean' },
    },
    run: async ({ values }) => {
      const need = ['tasks', 'task', 'solution'].filter((k) => !values[k]);
      if (need.length)
        throw new CliError(`missing ${need.map((k) => `--${k}`).join(', ')}\nusage: crucible reward score --tasks FILE --task ID --solution FILE --json`);
      for (const f of [values.tasks, values.solution] as string[]) if (!fs.existsSync(f)) throw new CliError(`no such file: ${f}`);
      const text = fs.readFileSync(values.tasks as string, 'utf8');
      const format = (values.format as string | undefined) ?? (/"task_id"\s*:/.test(text) ? 'humaneval' : 'crucible');
      if (format !== 'crucible' && format !== 'humaneval') throw new CliError(`--format must be crucible or humaneval, got "${format}"`);
      const { tasks, errors } = parseTaskFile(text, format);
      if (errors.length) throw new CliError(`${values.tasks} has bad lines:\n${errors.map((e) => `  line ${e.line}: ${e.message}`).join('\n')}`);
      const task = tasks.find((t) => t.externalId === values.task);
      if (!task)
        throw new CliError(
          `no task "${String(values.task)}" in ${values.tasks}; it has: ${tasks
            .slice(0, 10)
            .map((t) => t.externalId)
            .join(', ')}${tasks.length > 10 ? ', …' : ''}`,
        );
      const testTimeoutMs = values['test-timeout-ms'] ? Number(values['test-timeout-ms']) : 2000;
      if (!Number.isInteger(testTimeoutMs) || testTimeoutMs < 10) throw new CliError('--test-timeout-ms must be an integer ≥ 10');
      const manager = new SandboxManager({ dataDir: dataDir(), storeDir: envStoreDir(), runtime: runtimeOptions(settings()) });
      try {
        if (!values.env) ensureDefaultEnvironment(manager.storeDir);
        manager.runtime((values.runtime as string | undefined) ?? 'bwrap'); // refuses a missing runtime with what to install
        const r = await scoreSolution(
          manager,
          { runtime: values.runtime as string | undefined, env: values.env as string | undefined, limits: episodeSandboxLimits },
          task,
          fs.readFileSync(values.solution as string, 'utf8'),
          { testTimeoutMs },
        );
        const result = {
          reward: r.reward,
          components: r.components,
          status: r.status,
          envHash: r.envHash,
          runtime: r.runtime,
          harnessVersion: r.harnessVersion,
          tests: r.harness.tests.map((t) => ({ index: t.index, passed: t.passed, detail: t.detail })),
        };
        output(!!values.json, result, () =>
          [
            `${path.basename(values.solution as string)} on ${task.externalId}: ${r.status}, reward ${r.reward?.toFixed(3) ?? '— (not scored)'}`,
            `tests ${r.components.testsPassed}/${r.components.testsTotal}, style ${r.components.style.toFixed(2)}, efficiency ${r.components.efficiency.toFixed(2)}, env ${r.envHash}`,
            ...r.harness.tests.map((t) => `  #${t.index} ${t.passed ? 'pass' : 'FAIL'}  ${t.detail}`),
          ].join('\n'),
        );
        return 0;
      } finally {
        await manager.close();
      }
    },
  },
];
