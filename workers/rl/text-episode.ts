import type { TextCheck } from '@/core/tasks';
import { PermanentJobError } from '@/workers/jobs/job-handler';
import type { RlPolicy } from '@/lib/policy/rl-policy';
import { scoreText } from '@/workers/rl/reward/text-reward';
import type { ScoringOptions } from '@/workers/rl/reward/scoring-options';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Logger } from '@/server/logs/logger';
import { withoutNul as clean } from './agent-turn-rows';
import { logSampled, logSandboxExec } from './episode-log';
import { checkResults, sampledSpan, type EpisodeOutcome } from './episode';
import { withComputePhase } from '@/lib/compute/meter';

export type TextTask = { prompt: string; checks: TextCheck[] };

/** What the next reader sees of a text turn's checks: how many passed, and the first that failed. */
export function textObservation(tests: { passed: boolean; detail: string }[]): string {
  const failed = tests.find((t) => !t.passed);
  return `${tests.filter((t) => t.passed).length}/${tests.length} checks passed${failed ? `; ${failed.detail.slice(0, 80)}` : ''}`;
}

/**
 * Whether a text turn's continuation was cut off at the token budget: it ended neither at
 * EOS nor at a line break (derived from the stored tokens, like the I/O episodes' rule).
 */
export function textTruncated(policy: Pick<RlPolicy, 'eosIds' | 'newlineIds'>, generated: number[]): boolean {
  if (!generated.length) return false;
  const last = generated.at(-1)!;
  return !policy.eosIds.includes(last) && !policy.newlineIds().includes(last);
}

/**
 * One text episode (a single turn): the policy continues the prompt until a line break,
 * EOS or the token budget, and the checker program scores the continuation's text in a
 * sandbox (./reward/text-reward.ts). The continuation is the text before the first line
 * break; the tokens trained on are every token sampled, the one holding the break included,
 * so the policy learns where to end a paragraph.
 */
export async function runTextEpisode(o: {
  policy: RlPolicy;
  manager: SandboxManager;
  scoring: ScoringOptions;
  task: TextTask;
  seed: number;
  temperature: number;
  topP: number;
  maxNewTokens: number;
  context: { runId: string; episodeId: string };
  signal?: AbortSignal;
  /** bound to the run and episode: the sampling and the checker's sandbox run are logged */
  log?: Logger;
}): Promise<EpisodeOutcome> {
  if (o.signal?.aborted) throw new Error('episode aborted (lease lost or worker stopping)');
  const ids = o.policy.encodePrompt(o.task.prompt);
  const room = o.policy.maxSeqLen - ids.length;
  if (room < 1) throw new PermanentJobError(`the prompt is ${ids.length} tokens, the policy's context is ${o.policy.maxSeqLen}: shorten the task's prompt`);
  const t0 = performance.now();
  const [c] = await o.policy.sample([ids], {
    maxNewTokens: Math.min(o.maxNewTokens, room),
    temperature: o.temperature,
    topP: o.topP,
    seed: o.seed >>> 0,
    stop: o.policy.newlineIds().map((id) => [id]),
  });
  const policyMs = performance.now() - t0;
  logSampled(o.log, { turn: 0, tokens: c!.tokens.length, durationMs: policyMs, truncated: c!.finishReason === 'length' });
  const text = o.policy.decode(c!.tokens).split('\n')[0]!.trimEnd();
  const t1 = performance.now();
  const score = await withComputePhase('grading', () => scoreText(o.manager, o.scoring.sandbox, o.task.checks, text, { context: o.context }));
  const sandboxMs = performance.now() - t1;
  const exec = score.harness.exec;
  logSandboxExec(o.log, {
    turn: 0,
    status: score.status,
    execStatus: exec.status,
    exitCode: exec.exitCode,
    durationMs: sandboxMs,
    passed: score.harness.tests.filter((x) => x.passed).length,
    total: score.harness.tests.length,
    reward: score.reward,
  });
  const observation = score.status === 'scored' ? textObservation(score.harness.tests) : `infrastructure failure: ${score.status}`;
  return {
    turns: [
      {
        index: 0,
        action: clean(text),
        ...sampledSpan(c!),
        observation: clean(observation),
        stdout: '',
        stderr: clean((score.harness.harnessError ?? '').slice(0, 4000)),
        exitCode: exec.exitCode,
        execStatus: exec.status,
        policyMs: Math.round(policyMs),
        sandboxMs: Math.round(sandboxMs),
        cpuMs: Math.round(exec.usage?.cpuMs ?? 0),
        maxRssMb: exec.usage?.maxRssMb ?? 0,
        truncated: c!.finishReason === 'length',
        tests: checkResults(score),
      },
    ],
    score,
    endReason: score.status !== 'scored' ? 'infra' : score.components.passRate === 1 ? 'solved' : 'done',
    policyMs,
    sandboxMs,
  };
}
