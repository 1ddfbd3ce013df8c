import { TASK_KINDS, type TaskKind as TaskKindName } from '@/core/tasks';
import { ioKind } from './io-kind';
import { repoKind } from './repo-kind';
import type { TaskKind } from './task-kind';
import { textKind } from './text-kind';

/** Every kind of task the RL loop runs, by `tasks.kind`. */
export const TASK_KIND_IMPLEMENTATIONS = { io: ioKind, text: textKind, repo: repoKind } as const satisfies Record<TaskKindName, TaskKind>;

/** The implementation for a task's kind; an unknown kind (a row written by a newer version) is refused by name. */
export function taskKind(kind: string): TaskKind {
  if (!(TASK_KINDS as readonly string[]).includes(kind))
    throw new Error(`unknown task kind "${kind}" (this worker runs ${TASK_KINDS.join(', ')}); upgrade the worker or import the task again`);
  return TASK_KIND_IMPLEMENTATIONS[kind as TaskKindName];
}
