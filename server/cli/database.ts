import { openDatabase, type OpenedDatabase } from '@/db/runtime';
import type { Database } from '@/db/client';

let opened: Promise<OpenedDatabase> | undefined;

/**
 * The CLI's database: the running instance's, or the embedded server started just for
 * this command (and stopped after it) when nothing is running.
 */
export function cliDatabase(): Promise<Database> {
  opened ??= openDatabase({ appName: 'crucible-cli', startEmbedded: true, max: 4 });
  return opened.then((o) => o.database);
}

export async function closeCliDatabase(): Promise<void> {
  if (!opened) return;
  const o = await opened.catch(() => undefined);
  opened = undefined;
  await o?.close();
}
