import { openDatabase, type OpenedDatabase } from '@/db/open-database';
import type { Database } from '@/db/client';
import { CliError } from './args';

let opened: Promise<OpenedDatabase> | undefined;

/**
 * The CLI's database: the running instance's, or the embedded server started just for
 * this command (and stopped after it) when nothing is running but its data is there. Where
 * there is no data at all, the command fails saying where it looked (it never creates an
 * empty installation behind the user's back).
 */
export function cliDatabase(): Promise<Database> {
  // Failing to open is a setup problem (no server, superuser refused, …): print the message, not a stack.
  opened ??= openDatabase({ appName: 'crucible-cli', startEmbedded: 'existing', max: 4 }).catch((e: Error) => {
    throw new CliError(e.message, 1);
  });
  return opened.then((o) => o.database);
}

export async function closeCliDatabase(): Promise<void> {
  if (!opened) return;
  const o = await opened.catch(() => undefined);
  opened = undefined;
  await o?.close();
}
