import { openDatabase, type OpenedDatabase } from '@/db/open-database';
import type { Db } from '@/db/client';
import { settings } from '@/core/settings';
import { createProcessLogger, type ProcessLogger } from '@/server/logs/logger';
import { setInternalErrorSink } from '@/server/http/internal-error';

// One pool per web-server process, shared across requests (and across hot reloads in dev).
const g = globalThis as unknown as { __crucibleDb?: Promise<OpenedDatabase>; __crucibleLog?: ProcessLogger };

/**
 * The web process's structured logger (server/logs): JSON lines on stdout, shipped to
 * `log_records` once the database is open, so a console error's id is searchable in /logs.
 */
function webLogger(): ProcessLogger {
  g.__crucibleLog ??= createProcessLogger({ process: 'web', settings: settings() });
  return g.__crucibleLog;
}

export function webDatabase(): Promise<Db> {
  g.__crucibleDb ??= openDatabase({ appName: 'crucible-web', max: 10 })
    .then((o) => {
      const log = webLogger();
      log.attach(o.database.db);
      setInternalErrorSink((id, where, cause) => log.logger.error({ errorId: id, where, err: cause }, `internal error ${id} in ${where}`));
      return o;
    })
    .catch((e) => {
      g.__crucibleDb = undefined;
      throw e;
    });
  return g.__crucibleDb.then((o) => o.database.db);
}
