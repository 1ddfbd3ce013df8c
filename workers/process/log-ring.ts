import type { WorkerLogLine } from '@/db/schema';

/** Lines a worker keeps (and its heartbeat stores) by default. */
export const LOG_RING_LINES = 50;
/** Longer lines are cut: a stack trace or a dumped payload must not fill the row. */
export const LOG_LINE_MAX_CHARS = 500;

// ANSI escape sequences (colours, cursor moves) first, so their parameters do not survive as text.
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// Every other C0/C1 control character but tab, including NUL, which a jsonb value cannot hold.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One log line made safe to store and show: no escape sequences or control characters, bounded length. */
export function cleanLogLine(text: string): string {
  const cleaned = text.replace(ANSI, '').replace(CONTROL, '').replace(/\t/g, ' ').trimEnd();
  return cleaned.length > LOG_LINE_MAX_CHARS ? `${cleaned.slice(0, LOG_LINE_MAX_CHARS - 1)}…` : cleaned;
}

/**
 * The newest `capacity` lines of a worker's log, for its heartbeat to store with the
 * registration (the console's worker detail shows them). A multi-line message (a stack)
 * becomes one entry per line, so the bound is in lines as shown.
 */
export class LogRing {
  private lines: WorkerLogLine[] = [];
  /** Bumped on every push: the heartbeat writes the lines only when they changed. */
  version = 0;

  constructor(private readonly capacity = LOG_RING_LINES) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new Error(`log ring capacity must be a positive integer, got ${capacity}`);
  }

  push(message: string, at = new Date()): void {
    const iso = at.toISOString();
    for (const part of message.split(/\r?\n|\r/)) {
      const line = cleanLogLine(part);
      if (line) this.lines.push({ at: iso, line });
    }
    if (this.lines.length > this.capacity) this.lines = this.lines.slice(-this.capacity);
    this.version++;
  }

  /** Oldest first; a copy. */
  snapshot(): WorkerLogLine[] {
    return this.lines.slice();
  }
}
