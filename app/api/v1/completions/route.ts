import { settings } from '@/core/settings';
import { webDatabase } from '@/server/db';
import { openAiRoutes } from '@/server/http/openai-routes';

export const dynamic = 'force-dynamic';

/** The OpenAI-compatible endpoint (server/http/openai-routes.ts). */
export const POST = openAiRoutes(webDatabase, settings()).completions;
