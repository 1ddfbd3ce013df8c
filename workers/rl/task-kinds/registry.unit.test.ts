import { describe, expect, it } from 'vitest';
import { TASK_KINDS } from '@/core/tasks';
import { TASK_KIND_TRAITS } from '@/core/task-kinds';
import { taskKind } from './registry';

describe('the task kind registry', () => {
  it('has one implementation per kind, named for it, agreeing with the traits other layers read', () => {
    for (const k of TASK_KINDS) {
      expect(taskKind(k).name).toBe(k);
      // an agent-episode kind trains each episode as one sequence
      expect(taskKind(k).wholeEpisode).toBe(TASK_KIND_TRAITS[k].agentEpisodes);
    }
  });

  it('refuses a kind it does not know, by name', () => {
    expect(() => taskKind('notebook')).toThrow(/unknown task kind "notebook" \(this worker runs io, repo, text\)/);
  });
});
