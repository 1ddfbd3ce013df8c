import type { RunStatus } from '@/server/runs/transitions';

/** Run statuses for filters; which actions each allows comes from the server (runs.get). */
export const runStatuses: RunStatus[] = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'];
export type { RunStatus };

/** Runs whose state changes on its own: poll them. */
export const isActive = (status: string) => status === 'queued' || status === 'running';
