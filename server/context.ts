import type { Db } from '@/db/client';
import { identify, type CurrentUser } from './auth/identity';

export type Context = {
  db: Db;
  user: CurrentUser | null;
  /** response headers, for Set-Cookie on login/logout (absent for in-process callers) */
  resHeaders?: Headers;
  reqHeaders?: Headers;
  secureCookies?: boolean;
};

export async function createContext(db: Db, req: Request, resHeaders: Headers): Promise<Context> {
  return {
    db,
    user: await identify(db, req.headers),
    resHeaders,
    reqHeaders: req.headers,
    secureCookies: new URL(req.url).protocol === 'https:',
  };
}
