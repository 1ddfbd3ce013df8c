import { settings } from '@/core/settings';
import { webDatabase } from '@/server/db';
import { envSessionRoute } from '@/server/http/env-session-route';

export const dynamic = 'force-dynamic';

/** The step API as plain JSON (server/http/env-session-route.ts). */
export const POST = envSessionRoute(webDatabase, settings());
