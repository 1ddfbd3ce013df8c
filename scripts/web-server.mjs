// The web process `npm start` runs (instead of `next start`): Next's custom-server API behind
// our own small Node HTTP server, so that every request carries its real TCP peer address in
// a header no client can forge (server/http/peer-header.mjs). Login throttling needs it to
// tell callers apart without a proxy (server/auth/client-address.ts).
//
//   node scripts/web-server.mjs [--dev] [-p PORT] [-H HOSTNAME]
//
// Plain JavaScript, run by bare `node`, so Next loads its code the same way `next start` does.
// Like `next start`: PORT/-p (default 3000), every interface unless -H, NODE_ENV production
// (development with --dev, i.e. `next dev`), build output from CRUCIBLE_NEXT_DIST via
// next.config.mjs, telemetry off, and on SIGTERM/SIGINT it stops accepting connections,
// finishes the requests in flight, closes Next and exits 143/130.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withPeerHeader } from '../server/http/peer-header.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  options: {
    dev: { type: 'boolean', default: false },
    port: { type: 'string', short: 'p' },
    hostname: { type: 'string', short: 'H' },
  },
});
const dev = values.dev;
// Plain JS cannot import core/settings.ts, where PORT is documented: read here (a listed lint exception).
const portText = values.port ?? process.env.PORT ?? '3000';
const port = Number(portText);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`web-server: the port must be a TCP port number (-p or PORT), got ${portText}`);
  process.exit(1);
}
// Set before Next loads: it reads both at import time, and next.config.mjs reads NODE_ENV.
process.env.NODE_ENV ||= dev ? 'development' : 'production';
process.env.NEXT_TELEMETRY_DISABLED ??= '1';

const { default: next } = await import('next');
const server = http.createServer();
const app = next({ dev, dir: root, port, hostname: values.hostname, httpServer: server });
await app.prepare();
const handle = withPeerHeader(app.getRequestHandler());

server.on('request', (req, res) => {
  handle(req, res).catch((e) => {
    console.error(`web-server: failed to handle ${req.method} ${req.url}:`, e);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
});
server.on('error', (e) => {
  console.error(`web-server: ${e.message}`);
  process.exit(1);
});
server.listen(port, values.hostname, () => {
  console.log(`web-server: ${dev ? 'development' : 'production'} server listening on http://${values.hostname ?? 'localhost'}:${port}`);
});

let stopping = false;
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
]) {
  process.on(signal, () => {
    if (stopping) return; // one Ctrl-C often arrives twice (terminal and parent)
    stopping = true;
    // Stop accepting, let requests in flight finish (idle keep-alive sockets close now), then close Next.
    server.close(async () => {
      await app.close().catch((e) => console.error(`web-server: closing Next failed: ${e.message}`));
      process.exit(code);
    });
    server.closeIdleConnections();
    // Dev: HMR websockets and streaming never end by themselves.
    if (dev) server.closeAllConnections();
  });
}
