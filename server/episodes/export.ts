import { detectToolCallFormat } from '@/core/tool-call-formats';
import { runsAgentEpisodes } from '@/core/task-kinds';
import type { RunConfig } from '@/core/run-config';
import { and, asc, eq, gte, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/db/client';
import { episodes, models, policyVersions, rewards, runs, tasks, turns } from '@/db/schema';
import { defaultSystemPrompt } from '@/lib/agent/episode/system-prompt';
import { agentTaskPrompt } from '@/lib/agent/episode/task-prompt';
import { loadStoredRepoTask } from '@/server/tasks/repo-task-store';
import { loadSuiteSystemPrompt } from '@/server/tasks/suite-system-prompt';
import { toolCallFormat } from '@/lib/agent/tools/call-formats/registry';
import type { ToolCallFormat } from '@/lib/agent/tools/call-formats/call-format';
import { DomainError } from '@/server/errors';
import { episodeStatuses } from './service';

export const exportEpisodesSchema = z.object({
  runId: z.uuid('runId must be a run id (uuid)'),
  /** only episodes with a reward at least this (episodes without one are left out) */
  minReward: z.number().finite().optional(),
  status: z.array(z.enum(episodeStatuses)).min(1).default(['scored']),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(200).default(50),
});

/** A message in OpenAI's chat format, as SFT tools read it. */
export type ExportMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; content: string; name: string; tool_call_id?: string };

/** One episode as exported: the conversation, the exact token view, the reward and what produced it. */
export type ExportedEpisode = {
  id: string;
  run_id: string;
  task_id: string | null;
  iteration: number;
  status: string;
  end_reason: string | null;
  reward: number | null;
  components: Record<string, number> | null;
  env_hash: string | null;
  harness_version: string | null;
  policy_version: number | null;
  messages: ExportMessage[];
  /** the episode's one token sequence: every turn's ids in order; loss_mask 1 on the sampled tokens, with their logprobs */
  tokens: { ids: number[]; loss_mask: number[]; logprobs: number[] };
};

type TurnRow = typeof turns.$inferSelect;

/** How a run's agent wrote tool calls, and the system prompt it was given (the run's own, else its suite's, else run-episode.ts's default). */
async function agentConventions(db: Db, c: RunConfig, suiteId: string | null): Promise<{ format: ToolCallFormat; system: string }> {
  let template: string | undefined;
  if (c.policy.kind === 'hf') template = (await db.select({ t: models.chatTemplate }).from(models).where(eq(models.name, c.policy.model)))[0]?.t ?? undefined;
  const format = toolCallFormat(c.toolCallFormat ?? detectToolCallFormat(template));
  return { format, system: c.agentSystemPrompt ?? (await loadSuiteSystemPrompt(db, suiteId)) ?? defaultSystemPrompt(format) };
}

/**
 * An agent episode's messages from its stored turns: each turn's assistant text split by the
 * run's tool-call format into content and structured calls (ids `call_<turn>_<n>`), then one
 * tool message per executed call (a malformed call's error, or the "no tool call" note, as a
 * tool message named "error", as the agent got it).
 */
function agentMessages(rows: TurnRow[], prompt: string, conv: { format: ToolCallFormat; system: string }): ExportMessage[] {
  const out: ExportMessage[] = [
    { role: 'system', content: conv.system },
    { role: 'user', content: prompt },
  ];
  for (const t of rows) {
    const parsed = conv.format.parse(t.action);
    const ids: (string | undefined)[] = [];
    const calls = parsed.calls.flatMap((c, i) => {
      if (!c.ok) return (ids.push(undefined), []);
      const id = `call_${t.index}_${i}`;
      ids.push(id);
      return [{ id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } }];
    });
    out.push({ role: 'assistant', content: parsed.content, ...(calls.length ? { tool_calls: calls } : {}) });
    const records = t.toolCalls ?? [];
    if (!records.length && t.observation) out.push({ role: 'tool', name: 'error', content: t.observation });
    records.forEach((r, i) => out.push({ role: 'tool', name: r.name || 'error', content: r.output, ...(ids[i] ? { tool_call_id: ids[i] } : {}) }));
  }
  return out;
}

/** An input/output or text episode: the task's prompt, then each attempt and what it was told. */
function plainMessages(rows: TurnRow[], prompt: string): ExportMessage[] {
  const out: ExportMessage[] = [{ role: 'user', content: prompt }];
  for (const t of rows) {
    out.push({ role: 'assistant', content: t.action });
    if (t.observation) out.push({ role: 'user', content: t.observation });
  }
  return out;
}

function tokenView(rows: TurnRow[]): ExportedEpisode['tokens'] {
  const v: ExportedEpisode['tokens'] = { ids: [], loss_mask: [], logprobs: [] };
  for (const t of rows) {
    const ids = t.tokenIds ?? [];
    v.ids.push(...ids);
    v.loss_mask.push(...(t.lossMask ?? ids.map(() => 1)));
    v.logprobs.push(...(t.logprobs ?? ids.map(() => 0)));
  }
  return v;
}

/**
 * A page of a run's episodes for training elsewhere (SFT on the successes, offline RL):
 * chat messages and the token view, reward and components, environment hash, grader and
 * policy version. Filtered by status (default: scored) and a minimum reward; ordered by
 * iteration, group and sample, so pages are stable. `next` is the offset of the next page.
 */
export async function exportEpisodes(db: Db, input: z.input<typeof exportEpisodesSchema>): Promise<{ items: ExportedEpisode[]; next: number | null }> {
  const q = exportEpisodesSchema.parse(input);
  const [run] = await db.select({ id: runs.id, config: runs.config, suiteId: runs.suiteId }).from(runs).where(eq(runs.id, q.runId));
  if (!run) throw new DomainError('NOT_FOUND', `no run with id ${q.runId}`);
  const conds = [eq(episodes.runId, q.runId), inArray(episodes.status, q.status)];
  if (q.minReward !== undefined) conds.push(gte(rewards.value, q.minReward));
  const rows = await db
    .select({
      e: episodes,
      task: { id: tasks.id, externalId: tasks.externalId, prompt: tasks.prompt, kind: tasks.kind },
      reward: { value: rewards.value, components: rewards.components, envHash: rewards.envHash, harnessVersion: rewards.harnessVersion },
      version: policyVersions.version,
    })
    .from(episodes)
    .leftJoin(tasks, eq(tasks.id, episodes.taskId))
    .leftJoin(rewards, eq(rewards.episodeId, episodes.id))
    .leftJoin(policyVersions, eq(policyVersions.id, episodes.policyVersionId))
    .where(and(...conds))
    .orderBy(asc(episodes.iteration), asc(episodes.groupIndex), asc(episodes.sampleIndex), asc(episodes.id))
    .limit(q.limit + 1)
    .offset(q.offset);
  const page = rows.slice(0, q.limit);
  const turnRows = page.length
    ? await db
        .select()
        .from(turns)
        .where(
          inArray(
            turns.episodeId,
            page.map((r) => r.e.id),
          ),
        )
        .orderBy(asc(turns.episodeId), asc(turns.index))
    : [];
  const byEpisode = new Map<string, TurnRow[]>();
  for (const t of turnRows) {
    const list = byEpisode.get(t.episodeId);
    if (list) list.push(t);
    else byEpisode.set(t.episodeId, [t]);
  }
  const config = run.config as RunConfig;
  const conv = page.some((r) => r.task && runsAgentEpisodes(r.task.kind)) ? await agentConventions(db, config, run.suiteId) : undefined;
  // an agent's first message as it got it: the statement with the layout and test command (lib/agent/episode/task-prompt.ts)
  const agentPrompts = new Map<string, string>();
  for (const { task } of page)
    if (task && runsAgentEpisodes(task.kind) && !agentPrompts.has(task.id)) agentPrompts.set(task.id, agentTaskPrompt(await loadStoredRepoTask(db, task.id)));
  const items = page.map(({ e, task, reward, version }): ExportedEpisode => {
    const mine = byEpisode.get(e.id) ?? [];
    const prompt = (task && agentPrompts.get(task.id)) ?? task?.prompt ?? '';
    return {
      id: e.id,
      run_id: e.runId,
      task_id: task?.externalId ?? null,
      iteration: e.iteration,
      status: e.status,
      end_reason: e.endReason,
      reward: reward?.value ?? null,
      components: reward?.components ?? null,
      env_hash: reward?.envHash ?? e.envHash,
      harness_version: reward?.harnessVersion ?? null,
      policy_version: version ?? null,
      messages: task && runsAgentEpisodes(task.kind) && conv ? agentMessages(mine, prompt, conv) : plainMessages(mine, prompt),
      tokens: tokenView(mine),
    };
  });
  return { items, next: rows.length > q.limit ? q.offset + q.limit : null };
}
