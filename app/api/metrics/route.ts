import { settings } from '@/core/settings';
import { webDatabase } from '@/server/db';
import { metricsExposition } from '@/server/resources/prometheus';

export const dynamic = 'force-dynamic';

// Unauthenticated like most exporters; set CRUCIBLE_METRICS_TOKEN to require `Authorization: Bearer <token>`.
export async function GET(req: Request) {
  const token = settings().CRUCIBLE_METRICS_TOKEN;
  if (token && req.headers.get('authorization') !== `Bearer ${token}`) {
    return new Response('send Authorization: Bearer <CRUCIBLE_METRICS_TOKEN>\n', { status: 401 });
  }
  const db = await webDatabase();
  const { text, contentType } = await metricsExposition(db);
  return new Response(text, { headers: { 'content-type': contentType } });
}
