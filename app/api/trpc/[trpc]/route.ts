import { settings } from '@/core/settings';
import { webDatabase } from '@/server/db';
import { trpcRoute } from '@/server/http/trpc-route';

export const dynamic = 'force-dynamic';

const handler = trpcRoute(webDatabase, settings());
export { handler as GET, handler as POST };
