import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TextCheck } from '@/core/tasks';
import type { AcquireSpec, SandboxManager } from '@/lib/sandbox/pool/manager';
import type { HarnessResult, TestOutcome } from './harness';
import type { ScoreResult } from './reward';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHECKER = fs.readFileSync(path.join(here, 'text-checker.py'), 'utf8');
const CHECKER_PATH = '/tmp/.crucible-text-checker.py';

/** Recorded with every text reward: any change to the checker changes it. */
export const TEXT_CHECKER_VERSION = `text-checker-1+${createHash('sha256').update(CHECKER).digest('hex').slice(0, 12)}`;

/**
 * Score a text task's checks on `text` by running the checker program in a sandbox, like
 * every other reward (the text is its stdin, read as data, never run). The reward is the
 * share of checks passed: style and efficiency measure code and do not apply to text, so
 * they are 0 and the run's reward weights are not used. A sandbox that fails is an
 * infrastructure failure (no reward), never a 0.
 */
export async function scoreText(
  manager: SandboxManager,
  sandbox: AcquireSpec,
  checks: TextCheck[],
  text: string,
  opts: { timeoutMs?: number; context?: { runId?: string; episodeId?: string } } = {},
): Promise<ScoreResult> {
  const marker = `\u001eCRUCIBLE-${randomBytes(16).toString('hex')} `;
  const exec = await manager.exec(
    { ...sandbox, files: [{ dest: CHECKER_PATH, data: CHECKER, mode: 0o444 }] },
    ['python3', '-I', '-S', CHECKER_PATH],
    { timeoutMs: opts.timeoutMs ?? 10_000, stdin: JSON.stringify({ marker, text, checks }) },
    opts.context,
  );
  const total = checks.length;
  const base = { testsTotal: total, exec, output: '', style: { syntaxOk: true, issues: [] as string[] }, loadError: null };
  const infra = (status: 'env_mismatch' | 'sandbox_error', why: string): ScoreResult => {
    const harness: HarnessResult = { ...base, status, tests: [], testsPassed: 0, harnessError: why };
    return result(null, harness);
  };
  if (exec.status === 'env_mismatch' || exec.status === 'sandbox_error') return infra(exec.status, exec.error ?? exec.status);
  // the checker reads data only: anything but a clean exit with every record is the infrastructure's fault, not the text's
  const records = new Map<number, { passed: boolean; detail: string }>();
  for (const line of exec.stdout.split('\n')) {
    if (!line.startsWith(marker)) continue;
    try {
      const rec = JSON.parse(line.slice(marker.length)) as { i: number; passed: boolean; detail: string };
      records.set(rec.i, rec);
    } catch {
      /* a cut-off line is a missing record: an infrastructure failure below */
    }
  }
  if (exec.status !== 'ok' || exec.stdoutTruncated || records.size !== total)
    return infra(
      'sandbox_error',
      `the text checker did not finish (${exec.status}, ${records.size}/${total} checks): ${exec.error ?? exec.stderr.slice(0, 300)}`,
    );
  const tests: TestOutcome[] = checks.map((_, i) => ({ index: i, passed: records.get(i)!.passed === true, ms: 0, detail: String(records.get(i)!.detail) }));
  const passed = tests.filter((t) => t.passed).length;
  const harness: HarnessResult = { ...base, status: 'ran', tests, testsPassed: passed, harnessError: null };
  return result(total ? passed / total : 0, harness);
}

function result(reward: number | null, harness: HarnessResult): ScoreResult {
  const passRate = harness.testsTotal ? harness.testsPassed / harness.testsTotal : 0;
  return {
    reward,
    components: { passRate: reward === null ? 0 : passRate, testsPassed: harness.testsPassed, testsTotal: harness.testsTotal, style: 0, efficiency: 0 },
    status: harness.status === 'ran' ? 'scored' : harness.status,
    envHash: harness.exec.envHash,
    runtime: harness.exec.runtime,
    harnessVersion: TEXT_CHECKER_VERSION,
    harness,
  };
}
