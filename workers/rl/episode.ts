import type { TaskTests, TurnTestResult } from '@/core/tasks';
import type { Policy } from '@/lib/policy/policy';
import type { Completion } from '@/lib/policy/sample';
import { scoreSolution, type ScoreResult } from '@/workers/rl/reward/reward';
import type { ScoringOptions } from '@/workers/rl/reward/scoring-options';
import type { SandboxManager } from '@/lib/sandbox/pool/manager';
import type { Logger } from '@/server/logs/logger';
import { withoutNul as clean } from './agent-turn-rows';
import { logSampled, logSandboxExec } from './episode-log';

export type EpisodeTask = { language: 'python' | 'javascript'; prompt: string; entryPoint: string; tests: TaskTests };

export type TurnRecord = {
  index: number;
  action: string;
  /** prompt tokens (seen, mask 0) followed by the tokens the policy produced (mask 1) */
  tokenIds: number[];
  lossMask: number[];
  /** aligned with tokenIds; 0 on observation tokens */
  logprobs: number[];
  observation: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  execStatus: string;
  policyMs: number;
  sandboxMs: number;
  cpuMs: number;
  maxRssMb: number;
  truncated: boolean;
  /** each check's result (turns.tests); null when no check ran (an infrastructure failure) */
  tests: TurnTestResult[] | null;
};

export type EpisodeOutcome = {
  turns: TurnRecord[];
  /** last turn's score (the episode's reward), or the infra failure that ended it */
  score: ScoreResult;
  endReason: 'solved' | 'done' | 'max_turns' | 'infra';
  policyMs: number;
  sandboxMs: number;
};

const comment = (lang: EpisodeTask['language']) => (lang === 'python' ? '# ' : '// ');

/** Earlier turns' code and feedback as comments above the task, newest last, cut to a byte budget. */
export function buildPrompt(task: EpisodeTask, history: { body: string; observation: string }[], budget: number): string {
  const c = comment(task.language);
  let notes = history.map((h, i) => `${c}attempt ${i + 1}: ${h.body.trim().replace(/\s*\n\s*/g, ' ')}\n${c}result: ${h.observation}\n`).join('');
  if (notes.length > budget) notes = notes.slice(notes.length - budget).replace(/^[^\n]*\n/, '');
  return notes + task.prompt;
}

/** What the candidate's code looks like as a whole file: the prompt's header plus the body. */
export function sourceFor(task: EpisodeTask, body: string): string {
  return task.language === 'javascript' ? `${task.prompt}${body}\n}\n` : `${task.prompt}${body}\n`;
}

/** A check's detail is a value or an error message; a few hundred characters say which. */
const DETAIL_MAX = 500;

/** Each check's result as turns.tests stores it, or null where the harness did not run (infrastructure failure). */
export function checkResults(s: ScoreResult): TurnTestResult[] | null {
  if (s.harness.status !== 'ran') return null;
  return s.harness.tests.map((t) => ({ index: t.index, passed: t.passed, ms: Math.round(t.ms * 1000) / 1000, detail: clean(t.detail.slice(0, DETAIL_MAX)) }));
}

/** A turn's sequence as stored: the prompt's tokens (mask 0, logprob 0), then the sampled ones (mask 1, their logprobs). */
export function sampledSpan(c: Pick<Completion, 'promptTokens' | 'tokens' | 'logprobs'>) {
  return {
    tokenIds: [...c.promptTokens, ...c.tokens],
    lossMask: [...c.promptTokens.map(() => 0), ...c.tokens.map(() => 1)],
    logprobs: [...c.promptTokens.map(() => 0), ...c.logprobs],
  };
}

/** Short execution feedback for the next turn (the visible checks' outcome). */
export function observe(s: ScoreResult): string {
  const h = s.harness;
  if (h.loadError) return `error: ${h.loadError.split('\n').filter(Boolean).at(-1)?.slice(0, 80) ?? 'load failed'}`;
  const failed = h.tests.find((t) => !t.passed);
  return `${h.testsPassed}/${h.testsTotal} passed${failed ? `; ${failed.detail.slice(0, 60)}` : ''}`;
}

const STOP = { python: ['\n\n', '\ndef '], javascript: ['\n}'] } as const;

/**
 * Whether a turn's response was cut off at the token budget (overlong) rather than ended
 * by EOS or a stop sequence. Derived from the stored token ids, which include the EOS or
 * stop tokens that ended a response, so no extra column can disagree with them.
 */
export function wasTruncated(policy: Pick<Policy, 'tokenizer'>, language: EpisodeTask['language'], generated: number[]): boolean {
  if (!generated.length) return false;
  if (generated.at(-1) === policy.tokenizer.spec.eos) return false;
  return !STOP[language].some((st) => {
    const ids = policy.tokenizer.encode(st);
    return ids.length <= generated.length && ids.every((id, i) => generated[generated.length - ids.length + i] === id);
  });
}

/**
 * One multi-turn episode: the policy writes a body, the sandbox runs it against the
 * task's checks, the feedback goes into the next prompt; ends when all pass, when the
 * policy emits nothing new (done), or at max turns. Infrastructure failures end it at once.
 */
export async function runEpisode(o: {
  policy: Policy;
  manager: SandboxManager;
  /** from scoringOptions(): the sandbox, weights, timeouts and budget every turn is scored under */
  scoring: ScoringOptions;
  task: EpisodeTask;
  maxTurns: number;
  seed: number;
  temperature: number;
  topP: number;
  maxNewTokens: number;
  feedbackBudget: number;
  context: { runId: string; episodeId: string };
  signal?: AbortSignal;
  /** bound to the run and episode: each turn's sampling and sandbox run are logged */
  log?: Logger;
}): Promise<EpisodeOutcome> {
  const turns: TurnRecord[] = [];
  const history: { body: string; observation: string }[] = [];
  let score: ScoreResult | undefined;
  let endReason: EpisodeOutcome['endReason'] = 'max_turns';
  let policyMs = 0;
  let sandboxMs = 0;
  const maxPrompt = o.policy.model.maxSeqLen - o.maxNewTokens;
  for (let t = 0; t < o.maxTurns; t++) {
    if (o.signal?.aborted) throw new Error('episode aborted (lease lost or worker stopping)');
    let prompt = buildPrompt(o.task, history, o.feedbackBudget);
    let ids = o.policy.tokenizer.encode(prompt, { bos: true });
    while (ids.length > maxPrompt && history.length) {
      history.shift();
      prompt = buildPrompt(o.task, history, o.feedbackBudget);
      ids = o.policy.tokenizer.encode(prompt, { bos: true });
    }
    const t0 = performance.now();
    const [c] = await o.policy.sample([ids], {
      maxNewTokens: o.maxNewTokens,
      temperature: o.temperature,
      topP: o.topP,
      // seeded per (episode, turn): a fixed run seed replays to the same tokens
      seed: (o.seed * 31 + t) >>> 0,
      stop: [...STOP[o.task.language]],
    });
    const pMs = performance.now() - t0;
    policyMs += pMs;
    logSampled(o.log, { turn: t, tokens: c!.tokens.length, durationMs: pMs, truncated: c!.finishReason === 'length' });
    const body = c!.text.replace(/\n\}?$/, '').replace(/\n+$/, '');
    const t1 = performance.now();
    const { sandbox, ...scoring } = o.scoring;
    score = await scoreSolution(o.manager, sandbox, o.task, sourceFor(o.task, body), { ...scoring, context: o.context });
    const sMs = performance.now() - t1;
    sandboxMs += sMs;
    const observation = score.status === 'scored' ? observe(score) : `infrastructure failure: ${score.status}`;
    const exec = score.harness.exec;
    logSandboxExec(o.log, {
      turn: t,
      status: score.status,
      execStatus: exec.status,
      exitCode: exec.exitCode,
      durationMs: sMs,
      passed: score.harness.testsPassed,
      total: score.harness.testsTotal,
      reward: score.reward,
    });
    turns.push({
      index: t,
      action: clean(body),
      ...sampledSpan(c!),
      observation: clean(observation),
      // what the program printed; the harness's own protocol lines are not the candidate's output
      stdout: clean(score.harness.output.slice(0, 4000)),
      stderr: clean((score.harness.harnessError ?? exec.error ?? exec.stderr).slice(0, 4000)),
      exitCode: exec.exitCode,
      execStatus: exec.status,
      policyMs: Math.round(pMs),
      sandboxMs: Math.round(sMs),
      cpuMs: Math.round(exec.usage?.cpuMs ?? 0),
      maxRssMb: exec.usage?.maxRssMb ?? 0,
      truncated: c!.finishReason === 'length',
      tests: checkResults(score),
    });
    if (score.status !== 'scored') {
      endReason = 'infra';
      break;
    }
    if (score.components.passRate === 1) {
      endReason = 'solved';
      break;
    }
    // The policy says it is done by repeating its previous attempt verbatim.
    if (history.length && history.at(-1)!.body === body) {
      endReason = 'done';
      break;
    }
    history.push({ body, observation });
  }
  return { turns, score: score!, endReason, policyMs, sandboxMs };
}
