import http from 'node:http';
import type { AddressInfo } from 'node:net';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/core/settings';
import type { Database } from '@/db/client';
import { ADDRESS_LIMITS } from '@/server/auth/throttle';
import { trpcRoute } from '@/server/http/trpc-route';
import { createUser } from '@/server/users/service';
import { freshDatabase } from '@/test/database';
import { PEER_HEADER, withPeerHeader } from './peer-header.mjs';

// No trusted proxy: clients reach the front directly, as with a plain `npm start`. Passed to the handlers, not set in the environment.
const httpSettings = parseSettings({ CRUCIBLE_TRUST_PROXY: '0' });

/** What the stub saw of each request (Next's request handler is not involved). */
type Seen = { headers: http.IncomingHttpHeaders; rawHeaders: string[] };

/**
 * The front of scripts/web-server.mjs — a real Node HTTP server on a free port with
 * withPeerHeader — around `stub`, which stands in for Next's request handler.
 */
async function serveThroughFront(stub: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) {
  const server = http.createServer(withPeerHeader(stub));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** One request from local address `from` (any 127/8 address is this host on Linux). */
function request(port: number, from: string, o: { method?: string; path?: string; headers?: http.OutgoingHttpHeaders; body?: string }) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, localAddress: from, method: o.method ?? 'GET', path: o.path ?? '/', headers: o.headers, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

/** The stub's way of handing a Node request to an App Router style fetch handler, as Next does (from req.headers). */
function toFetch(handler: (req: Request) => Promise<Response>) {
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
    const response = await handler(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  };
}

const servers: http.Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

describe('HTTP front (scripts/web-server.mjs) with a stub in place of Next', () => {
  it('replaces a client-sent peer header with the socket address before the handler runs', async () => {
    const seen: Seen[] = [];
    const { server, port } = await serveThroughFront(async (req, res) => {
      seen.push({ headers: { ...req.headers }, rawHeaders: [...req.rawHeaders] });
      res.end('ok');
    });
    servers.push(server);
    expect(
      (await request(port, '127.0.0.2', { headers: { [PEER_HEADER]: '203.0.113.66', 'X-Crucible-Peer': '198.51.100.1', 'x-forwarded-for': '203.0.113.66' } }))
        .status,
    ).toBe(200);
    expect((await request(port, '127.0.0.3', {})).status).toBe(200);

    expect(seen[0]!.headers[PEER_HEADER]).toBe('127.0.0.2');
    const rawPeer = seen[0]!.rawHeaders.filter((_, i, a) => i % 2 === 1 && a[i - 1]!.toLowerCase() === PEER_HEADER);
    expect(rawPeer).toEqual(['127.0.0.2']);
    // Only the peer header is ours to rewrite; X-Forwarded-For is left as the client sent it.
    expect(seen[0]!.headers['x-forwarded-for']).toBe('203.0.113.66');
    expect(seen[1]!.headers[PEER_HEADER]).toBe('127.0.0.3');
  });

  describe('login throttling through the real tRPC route, without a proxy', () => {
    let database: Database;
    let port: number;
    beforeAll(async () => {
      database = await freshDatabase();
      await createUser(database.db, { username: 'olga', password: 'operator-password', role: 'operator' }, 'test');
      const front = await serveThroughFront(toFetch(trpcRoute(async () => database.db, httpSettings)));
      servers.push(front.server);
      port = front.port;
    });

    const login = async (from: string, username: string, password: string, forged?: string) =>
      (
        await request(port, from, {
          method: 'POST',
          path: '/api/trpc/auth.login',
          headers: { 'content-type': 'application/json', ...(forged ? { [PEER_HEADER]: forged, 'x-forwarded-for': forged } : {}) },
          body: JSON.stringify(superjson.serialize({ username, password })),
        })
      ).status;

    it('two peers get separate address buckets: one address failing many logins does not lock out another', async () => {
      // An attacker at 127.0.0.2 sprays usernames, claiming a new address each time.
      const statuses: number[] = [];
      for (let i = 0; i < ADDRESS_LIMITS.free + 1; i++) statuses.push(await login('127.0.0.2', `spray-${i}`, 'wrong', `192.0.2.${i + 1}`));
      expect(statuses.slice(0, ADDRESS_LIMITS.free)).toEqual(Array(ADDRESS_LIMITS.free).fill(401));
      expect(statuses.at(-1)).toBe(429); // its own bucket is throttled, whatever it claimed

      // Someone else can still sign in.
      expect(await login('127.0.0.3', 'olga', 'operator-password')).toBe(200);
      const rows = await database.sql<{ key: string; failures: number }[]>`select key, failures from login_throttle where key like 'addr:%' order by key`;
      expect(rows).toEqual([
        { key: 'addr:127.0.0.2', failures: ADDRESS_LIMITS.free },
        { key: 'addr:127.0.0.3', failures: 0 },
      ]);
    });
  });
});
