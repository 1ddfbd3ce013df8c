import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export type RouteHandler = (req: Request) => Promise<Response>;

/**
 * A real HTTP server (node:http on 127.0.0.1, a free port) in front of Next route handlers, as
 * `next start` would put them at `routes`' paths: for tests whose caller is an outside client
 * (the official `openai` package, python's urllib) without building the app. Bodies stream both
 * ways, so server-sent events arrive as they are sent.
 */
export async function serveRoutes(routes: Record<string, Partial<Record<'GET' | 'POST', RouteHandler>>>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      const handler = routes[url.pathname]?.[req.method as 'GET' | 'POST'];
      if (!handler) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
        return;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const body = req.method === 'GET' ? undefined : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
      const response = await handler(new Request(url, { method: req.method, headers, body, duplex: 'half' } as RequestInit));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return void res.end();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
      res.end();
    })().catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
