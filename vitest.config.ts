import path from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Four Vitest projects, named by the file's suffix:
 *
 * - `unit` — `*.unit.test.ts`: pure code. No Postgres (this project has no global setup, so a
 *   unit test that asks for a database fails loudly), no sandboxes, no ONNX sessions, no child
 *   processes. Seconds: `npm run test:unit` (worker threads).
 * - `integration` — every other `*.test.ts`: real Postgres (one throwaway embedded server, a
 *   fresh database per file), real sandboxes, real ONNX sessions.
 * - `system` — `*.system.test.ts`: several processes (the `crucible` binary, `npm start`,
 *   supervisors, two hosts) and learning runs. Same pool as integration, so the long files
 *   start first and the two cores stay busy.
 * - `exclusive` — `*.exclusive.test.ts`: tests that saturate every core on purpose (a busy host
 *   must not change a reward). They run alone, one file at a time, after everything else
 *   (sequence.groupOrder 1, maxWorkers 1).
 */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Files run in parallel across forks, each on its own database.
  pool: 'forks',
} as const;
const ignored = ['node_modules/**', 'e2e/**', '.next/**', '.data/**', '.test-data/**', 'tasks/**'];
// Two cores here; unit, integration and system share one pool of this many forks.
const WORKERS = 2;

const project = (name: string, test: TestProjectInlineConfiguration['test']): TestProjectInlineConfiguration => ({
  extends: true,
  test: { name, ...shared, ...test },
});

/**
 * Vitest's own order runs projects one after another by name (integration before system) and,
 * within one, the longest files first (by the last run's durations, else the largest). That
 * left the learning runs and the `crucible` process tests, the longest files, to start last
 * and run alone at the end. The system files go first instead; the rest keeps Vitest's order.
 */
class SystemFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => [f.project.config.sequence.groupOrder, f.project.name === 'system' ? 0 : 1] as const;
    return (await super.sort(files)).sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1]);
  }
}

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    exclude: ignored,
    sequence: { sequencer: SystemFirst },
    projects: [
      // threads, not forks: pure tests start in about half the time (no process per file)
      project('unit', { include: ['**/*.unit.test.ts'], exclude: ignored, pool: 'threads', maxWorkers: WORKERS, sequence: { groupOrder: 0 } }),
      project('integration', {
        include: ['**/*.test.ts'],
        exclude: [...ignored, '**/*.unit.test.ts', '**/*.system.test.ts', '**/*.exclusive.test.ts'],
        globalSetup: ['./test/global-setup.ts'],
        maxWorkers: WORKERS,
        sequence: { groupOrder: 0 },
      }),
      project('system', {
        include: ['**/*.system.test.ts'],
        exclude: ignored,
        globalSetup: ['./test/global-setup.ts'],
        maxWorkers: WORKERS,
        sequence: { groupOrder: 0 },
      }),
      project('exclusive', {
        include: ['**/*.exclusive.test.ts'],
        exclude: ignored,
        globalSetup: ['./test/global-setup.ts'],
        maxWorkers: 1,
        fileParallelism: false,
        sequence: { groupOrder: 1 },
      }),
    ],
  },
});
