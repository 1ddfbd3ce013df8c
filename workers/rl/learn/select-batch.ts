import type { RunConfig } from '@/core/run-config';
import { groupHasSignal } from '@/lib/policy/advantages';
import type { EpisodeReward } from '../learner-batch';

/** The parts of an episode row and its reward that decide whether it trains. */
export type BatchRow = {
  e: { id: string; status: string; groupIndex: number; policyVersionId: string | null };
  /** `disputed`: the dispute's reason, null when undisputed */
  r: { value: number; disputed: string | null; correctedValue: number | null; components?: Record<string, number> | null } | null;
};

export type SelectedBatch<T extends BatchRow> = {
  /** the episodes that train, in the order given (slot order) */
  valid: T[];
  /** each valid episode's training reward (a disputed one's correction under 'replace') */
  rewards: number[];
  trainEpisodes: EpisodeReward[];
  /** rewards by task group */
  groups: Map<number, number[]>;
  /** groups of more than one episode whose rewards are all equal (no learning signal) */
  zeroVarianceGroups: number;
};

/**
 * Which of an iteration's episodes train, and with what reward: scored ones only; those
 * sampled by a policy more than `maxStaleness` versions behind the current one are dropped
 * (an unknown version counts as one older than v0); a disputed reward is dropped ('exclude')
 * or replaced by its reviewer's correction when there is one ('replace'); a reward the grader
 * held for review (`components.suspect`) is left out unless a reviewer has corrected it.
 */
export function selectBatch<T extends BatchRow>(
  eps: T[],
  o: { currentVersion: number; versionOf: ReadonlyMap<string, number>; config: Pick<RunConfig, 'maxStaleness' | 'review'> },
): SelectedBatch<T> {
  const disputedMode = o.config.review.disputed;
  const valid = eps.filter(({ e, r }) => {
    if (e.status !== 'scored' || !r) return false;
    if (o.currentVersion - (o.versionOf.get(e.policyVersionId ?? '') ?? -1) > o.config.maxStaleness) return false;
    if (r.disputed && disputedMode === 'exclude') return false;
    // held for review (the grader's suspicion): trains only with a reviewer's corrected value
    if (r.components?.suspect === 1 && r.correctedValue == null) return false;
    return true;
  });
  const rewards = valid.map(({ r }) => (r!.disputed && disputedMode === 'replace' && r!.correctedValue != null ? r!.correctedValue : r!.value));
  const trainEpisodes = valid.map(({ e }, i) => ({ id: e.id, reward: rewards[i]!, group: e.groupIndex }));
  const groups = new Map<number, number[]>();
  valid.forEach(({ e }, i) => groups.set(e.groupIndex, [...(groups.get(e.groupIndex) ?? []), rewards[i]!]));
  const zeroVarianceGroups = [...groups.values()].filter((g) => g.length > 1 && !groupHasSignal(g)).length;
  return { valid, rewards, trainEpisodes, groups, zeroVarianceGroups };
}
