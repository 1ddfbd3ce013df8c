import { parseArgs, type ParseArgsConfig } from 'node:util';
import { terminalSafe } from './terminal-safe';

/** A CLI error: printed as `crucible: <message>` and exits with `code` (2 = usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 2,
  ) {
    super(message);
  }
}

export type Command = {
  /** e.g. "runs list" */
  name: string;
  summary: string;
  usage: string;
  options?: ParseArgsConfig['options'];
  allowPositionals?: boolean;
  run: (args: { values: Record<string, unknown>; positionals: string[]; rest: string[] }) => Promise<number>;
};

/** Parse argv for one command; `--` ends options and the rest is passed through untouched. */
export function parseFor(cmd: Command, argv: string[]) {
  const dd = argv.indexOf('--');
  const head = dd >= 0 ? argv.slice(0, dd) : argv;
  const rest = dd >= 0 ? argv.slice(dd + 1) : [];
  try {
    const { values, positionals } = parseArgs({
      args: head,
      options: { help: { type: 'boolean', short: 'h' }, ...(cmd.options ?? {}) },
      allowPositionals: cmd.allowPositionals ?? true,
      strict: true,
    });
    return { values: values as Record<string, unknown>, positionals, rest };
  } catch (e) {
    throw new CliError(`${(e as Error).message}\nusage: ${cmd.usage}`);
  }
}

/** Print a result as JSON (for automation, exact) or as readable text (terminal-safe: it shows user-supplied names). */
export function output(json: boolean, value: unknown, text: () => string): void {
  if (json) process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  else process.stdout.write(terminalSafe(text()) + '\n');
}

export function intOption(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliError(`--${name} must be a number, got "${String(v)}"`);
  return n;
}
