import { openDatabase, type OpenedDatabase } from '@/db/open-database';
import type { Db } from '@/db/client';

// One pool per web-server process, shared across requests (and across hot reloads in dev).
const g = globalThis as unknown as { __crucibleDb?: Promise<OpenedDatabase> };

export function webDatabase(): Promise<Db> {
  g.__crucibleDb ??= openDatabase({ appName: 'crucible-web', max: 10 }).catch((e) => {
    g.__crucibleDb = undefined;
    throw e;
  });
  return g.__crucibleDb.then((o) => o.database.db);
}
