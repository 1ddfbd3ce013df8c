import { settings } from '@/core/settings';
import { webDatabase } from '@/server/db';
import { taskImportRoute } from '@/server/http/task-import-route';

export const dynamic = 'force-dynamic';

/** Streaming task-file upload (large files do not fit the tRPC JSON body limit). */
export const POST = taskImportRoute(webDatabase, settings());
