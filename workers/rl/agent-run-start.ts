import { loadSuiteSystemPrompt } from '@/server/tasks/suite-system-prompt';
import { AGENT_EPISODE_KINDS } from '@/core/task-kinds';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { models, tasks } from '@/db/schema';
import { detectToolCallFormat } from '@/core/tool-call-formats';
import { DEFAULT_AGENT_TOOLS } from '@/core/repo-tasks';
import type { RunConfig } from '@/core/run-config';
import type { RlSettings } from '@/core/settings';

/** Whether a suite holds repository tasks (suites are imported from one file, so one kind). */
export async function suiteHoldsRepoTasks(db: Db, suiteId: string | null): Promise<boolean> {
  if (!suiteId) return false;
  const [row] = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.suiteId, suiteId), inArray(tasks.kind, AGENT_EPISODE_KINDS)))
    .limit(1);
  return !!row;
}

export type RunStartNote = { type: string; message: string; data: Record<string, unknown> };

/**
 * How rl.advance starts a run on this suite. Input/output suites: as configured (the SFT warm
 * start on the train demonstrations, the default byte model). Repository suites: no warm start
 * (it trains on I/O demonstrations; gold patches are not turned into agent transcripts), and a
 * policy whose context (maxSeqLen) is the run's agent token budget, so every episode fits the
 * learner as one sequence. `notes` become run events saying so.
 */
export async function agentRunStart(
  db: Db,
  run: { suiteId: string | null; config: RunConfig },
  s: Pick<RlSettings, 'sftSteps' | 'heldoutLimit'>,
): Promise<{ sftSteps: number; model?: { maxSeqLen: number }; notes: RunStartNote[] }> {
  if (!(await suiteHoldsRepoTasks(db, run.suiteId))) return { sftSteps: s.sftSteps, notes: [] };
  const c = run.config;
  const maxSeqLen = c.agentTokenBudget ?? 4096;
  const suitePrompt = await loadSuiteSystemPrompt(db, run.suiteId);
  const promptSource = c.agentSystemPrompt ? 'run' : suitePrompt ? 'suite' : 'default';
  const [{ n } = { n: 0 }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(tasks)
    .where(and(eq(tasks.suiteId, run.suiteId!), eq(tasks.split, 'heldout')));
  const heldout = s.heldoutLimit > 0 ? Math.min(n, s.heldoutLimit) : n;
  // how the model writes tool calls: the run's choice, else what its chat template renders (the byte model: hermes)
  const template =
    c.policy.kind === 'hf' ? ((await db.select({ t: models.chatTemplate }).from(models).where(eq(models.name, c.policy.model)))[0]?.t ?? undefined) : undefined;
  const toolCallFormat = c.toolCallFormat ?? detectToolCallFormat(template);
  const formatHow = c.toolCallFormat ? 'as the run sets' : c.policy.kind === 'hf' ? 'as its chat template renders them' : "the byte template's";
  const notes: RunStartNote[] = [
    {
      type: 'agent_setup',
      message: `repository suite: agent episodes with tools ${(c.tools ?? DEFAULT_AGENT_TOOLS).join(', ')}, at most ${c.maxTurns} turns and ${maxSeqLen} tokens each; ${
        c.policy.kind === 'byte'
          ? `the byte policy's context is ${maxSeqLen} tokens so each episode trains as one sequence`
          : `rendered with model "${c.policy.model}"'s chat template${c.chatTemplateArgs ? ` (with ${JSON.stringify(c.chatTemplateArgs)})` : ''}, the budget capped at its context so each episode trains as one sequence`
      }; tool calls in the ${toolCallFormat} format (${formatHow}); reward: ${
        c.repoReward === 'resolved'
          ? 'resolved (SWE-bench: 1 when every FAIL_TO_PASS and PASS_TO_PASS test passes, else 0)'
          : 'fraction (the test score blended with style and efficiency by the reward weights)'
      }; system prompt: ${
        c.agentSystemPrompt
          ? `the run's own (${c.agentSystemPrompt.length} characters)`
          : suitePrompt
            ? `the suite's (${suitePrompt.length} characters)`
            : "Crucible's default for the format"
      }`,
      data: {
        tools: c.tools ?? DEFAULT_AGENT_TOOLS,
        maxTurns: c.maxTurns,
        tokenBudget: maxSeqLen,
        maxNewTokens: c.agentMaxNewTokens,
        timeBudgetS: c.agentTimeBudgetS,
        toolCallFormat,
        repoReward: c.repoReward ?? 'fraction',
        systemPrompt: promptSource,
        ...(c.chatTemplateArgs ? { chatTemplateArgs: c.chatTemplateArgs } : {}),
      },
    },
  ];
  if (s.sftSteps > 0 && c.policy.kind === 'byte')
    notes.push({
      type: 'sft_skipped',
      message: `SFT warm start skipped: it trains on input/output demonstrations, and this suite holds repository tasks (CRUCIBLE_RL_SFT_STEPS=${s.sftSteps} applies to input/output suites)`,
      data: { sftSteps: s.sftSteps },
    });
  notes.push(
    heldout > 0
      ? {
          type: 'heldout_agent',
          message: `held-out evaluation: one greedy agent episode on each of ${heldout} held-out repository task(s) per policy version, graded like training episodes; pass@1 = share with reward 1`,
          data: { tasks: heldout },
        }
      : {
          type: 'heldout_skipped',
          message: 'held-out evaluation skipped: the suite has no held-out repository tasks; held-out pass@1 is recorded as 0 over 0 tasks',
          data: { tasks: 0 },
        },
  );
  return { sftSteps: 0, model: { maxSeqLen }, notes };
}
