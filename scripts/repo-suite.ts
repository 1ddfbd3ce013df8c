import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { repoSuiteJsonl, REPO_SUITE_DIR } from '@/lib/agent/suite/repo-suite';

/**
 * Write the built-in repository suite as a crucible-repo JSONL file, for
 * `crucible tasks import FILE --format crucible-repo`.
 *   npx tsx scripts/repo-suite.ts --out FILE.jsonl [--dir tasks/repo-suite]
 */
const { values } = parseArgs({ options: { out: { type: 'string' }, dir: { type: 'string' } } });
if (!values.out) {
  console.error('usage: npx tsx scripts/repo-suite.ts --out FILE.jsonl [--dir tasks/repo-suite]');
  process.exit(2);
}
const text = repoSuiteJsonl(values.dir ?? REPO_SUITE_DIR);
fs.writeFileSync(values.out, text);
console.log(`wrote ${text.trimEnd().split('\n').length} repository task(s) to ${values.out}`);
