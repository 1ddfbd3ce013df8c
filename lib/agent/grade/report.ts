import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * The test process's report, as the runner in the sandbox writes it (pytest-runner/,
 * node-reporter.mjs): exactly one JSON document, a newline, its HMAC-SHA256 (hex) under the
 * per-run key, a newline. Anything else — a forged or appended line, a second document, a
 * wrong nonce — fails verification.
 */

const reportDoc = z.object({
  nonce: z.string(),
  results: z.record(z.string(), z.enum(['passed', 'failed', 'error', 'skipped'])),
  tampered: z.array(z.string()),
  /** layer 4: what the runner saw that could be tampering or honest code; holds the grade for review */
  suspect: z.array(z.string()).max(20).default([]),
  exitstatus: z.number(),
});
export type TestReport = z.infer<typeof reportDoc>;

export function verifyReport(raw: Buffer, key: Buffer, nonce: string): { ok: true; report: TestReport } | { ok: false; why: string } {
  const text = raw.toString('utf8');
  const lines = text.split('\n');
  if (lines.length !== 3 || lines[2] !== '') return { ok: false, why: `the report has ${lines.length - 1} lines, not a document and its MAC` };
  const [doc, mac] = lines as [string, string];
  const want = createHmac('sha256', key).update(Buffer.from(doc, 'utf8')).digest();
  const have = /^[0-9a-f]{64}$/.test(mac) ? Buffer.from(mac, 'hex') : Buffer.alloc(0);
  if (have.length !== want.length || !timingSafeEqual(have, want)) return { ok: false, why: 'the report MAC does not verify (forged or altered)' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(doc);
  } catch {
    return { ok: false, why: 'the report is not JSON' };
  }
  const r = reportDoc.safeParse(parsed);
  if (!r.success) return { ok: false, why: `the report has the wrong shape: ${r.error.issues[0]?.message ?? ''}` };
  if (r.data.nonce !== nonce) return { ok: false, why: 'the report is from another run (nonce)' };
  return { ok: true, report: r.data };
}
