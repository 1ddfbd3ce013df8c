import type { Db } from '@/db/client';
import { logRecords } from '@/db/schema';
import { LOG_LEVELS, LOG_LEVEL_NUMBERS, levelName, type LogLevel } from '@/core/log-records';

/**
 * Ships a process's log records to `log_records` in batches, off the logging path: `write`
 * (what pino calls with each JSON line) only parses and buffers. A timer flushes every
 * `flushMs`, a full batch flushes at once, `stop` flushes what is left. The buffer is bounded:
 * while the database is slow or away the oldest records are dropped, and the next flush writes
 * one record saying how many.
 */

export type LogRecordInsert = typeof logRecords.$inferInsert;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** pino's own keys and the ids that have columns; the rest of a line goes to `fields`. */
const COLUMNS = new Set(['level', 'time', 'msg', 'host', 'process', 'pid', 'workerId', 'run', 'episode', 'job', 'hostname', 'v']);
const MAX_MSG = 4_000;
const MAX_FIELDS = 8_000;

/** PostgreSQL stores no NUL character, in text or jsonb: each becomes U+FFFD. */
const noNul = (s: string) => (s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s);

function levelOf(v: unknown): LogLevel {
  if (typeof v === 'number') return levelName(v);
  return typeof v === 'string' && (LOG_LEVELS as readonly string[]).includes(v) ? (v as LogLevel) : 'info';
}

/** One pino JSON line as a `log_records` row; null for a line that is not a JSON object. */
export function recordOfLine(line: string): LogRecordInsert | null {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    o = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const time = typeof o.time === 'number' || typeof o.time === 'string' ? new Date(o.time) : new Date();
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!COLUMNS.has(k)) fields[k] = v;
  // ids that are not what their column holds stay visible among the fields
  const id = (v: unknown, key: string) => {
    if (v === undefined || v === null) return null;
    if (typeof v === 'string' && UUID.test(v)) return v;
    fields[key] = v;
    return null;
  };
  const runId = id(o.run, 'run');
  const episodeId = id(o.episode, 'episode');
  let jobId: number | null = null;
  if (typeof o.job === 'number' && Number.isSafeInteger(o.job)) jobId = o.job;
  else if (o.job !== undefined) fields.job = o.job;
  // NUL inside a field's string (an agent's tool output) would make PostgreSQL refuse the whole batch
  let fieldsJson = JSON.stringify(fields, (_k, v: unknown) => (typeof v === 'string' ? noNul(v) : v));
  if (fieldsJson.length > MAX_FIELDS) fieldsJson = JSON.stringify({ truncated: fieldsJson.slice(0, MAX_FIELDS) });
  const msg = typeof o.msg === 'string' ? o.msg : o.msg === undefined ? '' : JSON.stringify(o.msg);
  return {
    at: Number.isNaN(time.getTime()) ? new Date() : time,
    level: levelOf(o.level),
    msg: noNul(msg.length > MAX_MSG ? `${msg.slice(0, MAX_MSG)}…` : msg),
    host: noNul(String(o.host ?? o.hostname ?? 'unknown')),
    process: noNul(String(o.process ?? 'unknown')),
    pid: typeof o.pid === 'number' ? o.pid : 0,
    workerId: typeof o.workerId === 'string' ? noNul(o.workerId) : null,
    runId,
    episodeId,
    jobId,
    fields: JSON.parse(fieldsJson) as Record<string, unknown>,
  };
}

export type LogShipperOptions = {
  /** the lowest level shipped */
  level: LogLevel;
  flushMs: number;
  /** records held at most; past this the oldest are dropped */
  maxBuffer: number;
  /** rows per INSERT */
  batchSize?: number;
  /** the process's own fields, for the record that reports dropped records */
  base: { host: string; process: string; pid: number };
  /** where the shipper's own trouble goes (not through the logger, which would feed it back) */
  warn?: (message: string) => void;
};

export class LogShipper {
  private buffer: LogRecordInsert[] = [];
  private dropped = 0;
  private workerId: string | null = null;
  private db: Db | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private failures = 0;
  private readonly min: number;
  private readonly batchSize: number;

  constructor(private readonly o: LogShipperOptions) {
    this.min = LOG_LEVEL_NUMBERS[o.level];
    this.batchSize = o.batchSize ?? 500;
  }

  /** pino's destination interface: one JSON line. */
  write(line: string): void {
    const r = recordOfLine(line);
    if (!r || LOG_LEVEL_NUMBERS[r.level] < this.min) return;
    if (r.workerId) this.workerId = r.workerId;
    this.push(r);
  }

  /** Records waiting to be shipped (and dropped so far and not yet reported). */
  get pending() {
    return { buffered: this.buffer.length, dropped: this.dropped };
  }

  private push(r: LogRecordInsert) {
    this.buffer.push(r);
    const over = this.buffer.length - this.o.maxBuffer;
    if (over > 0) {
      this.buffer.splice(0, over);
      this.dropped += over;
    }
    if (this.db && this.buffer.length >= this.batchSize) void this.flush();
  }

  /** Start shipping to `db` (records logged before are held until now, within the bound). */
  attach(db: Db): void {
    this.db = db;
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.flush(), this.o.flushMs);
    this.timer.unref();
    void this.flush();
  }

  /**
   * Ship everything buffered now. One flush runs at a time; a call during one gets a second
   * flush after it (shared by every call meanwhile), so what was buffered at the call is shipped.
   */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.drain().finally(() => (this.flushing = undefined));
      return this.flushing;
    }
    this.queued ??= this.flushing.then(() => {
      this.queued = undefined;
      return this.flush();
    });
    return this.queued;
  }

  private async drain(): Promise<void> {
    const db = this.db;
    while (db && (this.buffer.length > 0 || this.dropped > 0)) {
      const batch = this.buffer.splice(0, this.batchSize);
      const dropped = this.dropped;
      this.dropped = 0;
      if (dropped > 0) batch.unshift(this.droppedRecord(dropped));
      try {
        await db.insert(logRecords).values(batch);
        this.failures = 0;
      } catch (e) {
        // put the batch back (still bounded: the oldest go first) and try again next interval
        const kept = dropped > 0 ? batch.slice(1) : batch;
        this.buffer.unshift(...kept);
        this.dropped += dropped;
        const over = this.buffer.length - this.o.maxBuffer;
        if (over > 0) {
          this.buffer.splice(0, over);
          this.dropped += over;
        }
        if (this.failures++ % 20 === 0) this.o.warn?.(`log shipping failed (will retry): ${(e as Error).message}`);
        return;
      }
    }
  }

  private droppedRecord(n: number): LogRecordInsert {
    const b = this.o.base;
    return {
      at: new Date(),
      level: 'warn',
      msg: `dropped ${n} log record(s): the buffer of ${this.o.maxBuffer} was full (database slow or unreachable)`,
      host: b.host,
      process: b.process,
      pid: b.pid,
      workerId: this.workerId,
      fields: { dropped: n },
    };
  }

  /** Stop the timer and ship what is left (once more, best effort). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    this.db = undefined;
  }
}
