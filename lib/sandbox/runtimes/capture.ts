import type { Readable } from 'node:stream';

/**
 * Keeps at most `cap` bytes of a stream and keeps draining (so the child never blocks on
 * a full pipe) while discarding the rest: host memory stays flat under an output flood.
 */
export class CappedCapture {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly cap: number) {}

  attach(stream: Readable | null): void {
    stream?.on('data', (b: Buffer) => this.push(b));
  }

  push(b: Buffer): void {
    this.total += b.length;
    const room = this.cap - this.kept;
    if (room <= 0) return;
    const part = b.length <= room ? b : b.subarray(0, room);
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** UTF-8 text; invalid bytes become U+FFFD so the JSON result is always valid. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  4: 'SIGILL',
  5: 'SIGTRAP',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  10: 'SIGUSR1',
  11: 'SIGSEGV',
  12: 'SIGUSR2',
  13: 'SIGPIPE',
  14: 'SIGALRM',
  15: 'SIGTERM',
  24: 'SIGXCPU',
  25: 'SIGXFSZ',
  31: 'SIGSYS',
};

/**
 * bwrap and OCI runtimes report a command killed by signal N as exit status 128+N, the
 * shell convention; we read it back as a signal (a program that really exits 137 is
 * reported as SIGKILL — documented in docs/sandbox.md).
 */
export function splitExit(code: number | null, signal: NodeJS.Signals | null): { exitCode: number | null; signal: string | null } {
  if (signal) return { exitCode: null, signal };
  if (code !== null && code > 128 && SIGNALS[code - 128]) return { exitCode: null, signal: SIGNALS[code - 128]! };
  return { exitCode: code, signal: null };
}
