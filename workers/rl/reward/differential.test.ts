import { settings } from '@/core/settings';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testManager } from '@/lib/sandbox/sandbox.testkit';
import { defaultLimits } from '@/lib/sandbox/types';
import { loadCorpus, type CorpusEntry } from './differential/corpus';
import { runDirect, type DirectResult } from './differential/direct';
import { mapLimit } from './differential/pool';
import { runTests, type HarnessResult, type HarnessTask } from './harness';

/**
 * Differential test of the reward harness (corpus/README.md). (a) Every corpus program run
 * directly with python3/node gives its author's intended verdict: this guards the corpus.
 * (b) The harness gives the same verdict as the direct run: no correct program may score 0,
 * no incorrect one may pass. DIFFERENTIAL_DIRECT_ONLY=1 runs only (a);
 * DIFFERENTIAL_REPORT=FILE also writes the disagreements there as JSON.
 */

const corpus = loadCorpus();
// Two at a time: the machine has two cores, shared.
const CONCURRENCY = 2;
const direct = new Map<string, DirectResult>();

beforeAll(async () => {
  const results = await mapLimit(corpus, CONCURRENCY, (e) => runDirect(e));
  corpus.forEach((e, i) => direct.set(e.id, results[i]!));
}, 15 * 60_000);

describe('corpus: the direct verdict is the intended verdict', () => {
  for (const e of corpus) {
    it(e.id, () => {
      const d = direct.get(e.id)!;
      expect(d.passed ? 'pass' : 'fail', `${e.note} — direct run: ${d.detail}`).toBe(e.intended);
    });
  }
});

/** The harness's view of an entry; `prompt` matters for HumanEval (helpers, imports). */
function harnessTask(e: CorpusEntry): HarnessTask & { prompt: string } {
  return e.format === 'humaneval'
    ? { language: 'python', entryPoint: e.entry_point, tests: { kind: 'humaneval', check: e.test }, prompt: e.prompt }
    : { language: e.language, entryPoint: e.entryPoint, tests: { kind: 'io', cases: e.tests }, prompt: e.prompt };
}

type HarnessOutcome = { passed: boolean; summary: string };

function outcome(h: HarnessResult): HarnessOutcome {
  const passed = h.status === 'ran' && h.testsPassed === h.testsTotal;
  const parts = [`status=${h.status}`, `${h.testsPassed}/${h.testsTotal} passed`];
  if (h.loadError) parts.push(`load error: ${h.loadError}`);
  const failed = h.tests.filter((t) => !t.passed).map((t) => `#${t.index} ${t.detail.replace(/\s+/g, ' ').slice(0, 200)}`);
  if (failed.length) parts.push(`failed: ${failed.join(' | ')}`);
  if (h.status !== 'ran' || (!h.tests.length && h.exec.stderr)) parts.push(`stderr: ${h.exec.stderr.slice(-300)}`);
  return { passed, summary: parts.join('; ') };
}

/** Where a disagreement belongs when grouping: the language/format, and the JS module style. */
function group(e: CorpusEntry): string {
  if (e.format === 'humaneval') return 'python humaneval';
  if (e.language === 'python') return 'python io';
  return `javascript io ${e.style}${e.async ? ' async' : ''}`;
}

function report(harness: Map<string, HarnessOutcome>): string {
  const lines = [`differential corpus: ${corpus.length} entries`];
  for (const g of ['python humaneval', 'python io', 'javascript io']) {
    const es = corpus.filter((e) => group(e).startsWith(g));
    lines.push(`  ${g}: ${es.filter((e) => e.intended === 'pass').length} correct, ${es.filter((e) => e.intended === 'fail').length} incorrect`);
  }
  const intendedOk = corpus.filter((e) => direct.get(e.id)?.passed === (e.intended === 'pass')).length;
  lines.push(`direct = intended: ${intendedOk}/${corpus.length}`);
  const disagree = corpus.filter((e) => harness.get(e.id)?.passed !== direct.get(e.id)?.passed);
  lines.push(`harness = direct: ${corpus.length - disagree.length}/${corpus.length} agree, ${disagree.length} disagree`);
  const byGroup = new Map<string, number>();
  for (const e of disagree) byGroup.set(group(e), (byGroup.get(group(e)) ?? 0) + 1);
  for (const [g, n] of [...byGroup].sort()) lines.push(`  ${g}: ${n}/${corpus.filter((e) => group(e) === g).length} disagree`);
  if (disagree.length) lines.push('disagreements:');
  for (const e of disagree) {
    const d = direct.get(e.id)!;
    lines.push(
      `  ${e.id} — direct ${d.passed ? 'PASS' : 'FAIL'}, harness ${harness.get(e.id)?.passed ? 'PASS' : 'FAIL'} — ${harness.get(e.id)?.summary ?? 'no harness result'}`,
    );
  }
  return lines.join('\n');
}

describe.skipIf(settings().DIFFERENTIAL_DIRECT_ONLY)('harness: the harness verdict is the direct verdict', () => {
  let sandbox: ReturnType<typeof testManager>;
  const harness = new Map<string, HarnessOutcome>();

  beforeAll(async () => {
    // Admission books each sandbox's default quotas (caps, not resources in use): make room
    // for CONCURRENCY default sandboxes so the `{}` spec below is admitted as it is.
    const capacity = { cpus: CONCURRENCY * defaultLimits.cpus, memoryMb: CONCURRENCY * defaultLimits.memoryMb, diskMb: CONCURRENCY * defaultLimits.diskMb };
    sandbox = testManager('differential', { capacity, reserve: 0 });
    await mapLimit(corpus, CONCURRENCY, async (e) => {
      try {
        harness.set(e.id, outcome(await runTests(sandbox.manager, {}, harnessTask(e), e.solution, { testTimeoutMs: 2000 })));
      } catch (err) {
        // A harness that throws has not scored the program: that counts as not passing.
        harness.set(e.id, { passed: false, summary: `runTests threw: ${(err as Error).message}` });
      }
    });
  }, 30 * 60_000);

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  for (const e of corpus) {
    it(e.id, () => {
      const d = direct.get(e.id)!;
      const h = harness.get(e.id)!;
      expect(h.passed ? 'pass' : 'fail', `direct: ${d.detail}; harness: ${h.summary}`).toBe(d.passed ? 'pass' : 'fail');
    });
  }

  it('totals and disagreements (printed)', () => {
    const text = report(harness);
    console.log(text);
    const reportFile = settings().DIFFERENTIAL_REPORT;
    if (reportFile) {
      const rows = corpus
        .filter((e) => harness.get(e.id)?.passed !== direct.get(e.id)?.passed)
        .map((e) => ({ id: e.id, group: group(e), features: e.features, direct: direct.get(e.id), harness: harness.get(e.id) }));
      fs.writeFileSync(reportFile, JSON.stringify(rows, null, 2));
    }
    expect(text).toContain('harness = direct');
  });
});
