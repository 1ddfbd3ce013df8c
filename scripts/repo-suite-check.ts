import { parseArgs } from 'node:util';
import { checkRepoTaskOnHost } from '@/lib/agent/suite/host-check';
import { loadRepoSuite, REPO_SUITE_DIR } from '@/lib/agent/suite/repo-suite';

/**
 * Check the built-in repository suite on the host (no sandboxes): the untouched workspace fails
 * every FAIL_TO_PASS test and passes every PASS_TO_PASS test, the gold patch passes them all.
 *   npx tsx scripts/repo-suite-check.ts [--dir tasks/repo-suite] [--only ID,ID]
 */
const { values } = parseArgs({ options: { dir: { type: 'string' }, only: { type: 'string' } } });
const only = values.only ? new Set(values.only.split(',')) : null;
const tasks = loadRepoSuite(values.dir ?? REPO_SUITE_DIR).filter((t) => !only || only.has(t.id));
let bad = 0;
const started = Date.now();
for (const task of tasks) {
  const r = checkRepoTaskOnHost(task);
  if (!r.ok) bad++;
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${task.id} (${task.language}, ${task.difficulty ?? '-'}, ${task.split ?? 'train'}) ${r.ms} ms`);
  for (const p of r.problems) console.log(`       ${p}`);
}
console.log(`${tasks.length - bad}/${tasks.length} tasks check out in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(bad ? 1 : 0);
