/**
 * Structured log records: the levels (pino's), the ids every record may carry, and the
 * collection limits. Written by every process (workers/process/logger.ts), read by the
 * console, the CLI (`crucible logs`) and the episode timeline. Imports nothing from the project.
 */

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** pino's numeric levels. */
export const LOG_LEVEL_NUMBERS: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

export function levelName(n: number): LogLevel {
  let best: LogLevel = 'trace';
  for (const l of LOG_LEVELS) if (n >= LOG_LEVEL_NUMBERS[l]) best = l;
  return best;
}

/** Ids a record carries when it is about them (bound by the code that logs). */
export type LogContext = { run?: string; episode?: string; job?: number; task?: string };
