import type { Db } from '@/db/client';
import { clientAddress, frontPeerAddress } from './auth/client-address';
import { identify, type CurrentUser } from './auth/identity';
import { servedOverTls } from './http/tls';

export type Context = {
  db: Db;
  user: CurrentUser | null;
  /** response headers, for Set-Cookie on login/logout (absent for in-process callers) */
  resHeaders?: Headers;
  reqHeaders?: Headers;
  secureCookies?: boolean;
  /** the caller's address bucket for login throttling (server/auth/client-address.ts) */
  clientAddress?: string;
};

/** `trustProxy`: CRUCIBLE_TRUST_PROXY (forwarded headers decide TLS and the client address). */
export async function createContext(db: Db, req: Request, resHeaders: Headers, { trustProxy }: { trustProxy: boolean }): Promise<Context> {
  return {
    db,
    user: await identify(db, req.headers),
    resHeaders,
    reqHeaders: req.headers,
    secureCookies: servedOverTls(req.headers, trustProxy),
    clientAddress: clientAddress(req.headers, { trustProxy, socketAddress: frontPeerAddress(req.headers) }),
  };
}
