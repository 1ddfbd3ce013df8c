// Plain JavaScript: scripts/web-server.mjs runs under bare `node` (no tsx), and the app's own
// code (server/auth/client-address.ts) reads the same header name. Types: peer-header.d.mts.

/**
 * The request header that carries the TCP peer address of the connection a request came in
 * on. Under Next a route handler only sees a fetch Request, never the socket, so our HTTP
 * front (scripts/web-server.mjs) writes it. It is trustworthy only because the front deletes
 * whatever a client sent under this name and writes the real address on every request.
 */
export const PEER_HEADER = 'x-crucible-peer';

// Symbol.for: the front's copy of this module and the one Next bundles into the app share it.
const MARK = Symbol.for('crucible.web-front');

/**
 * Replace any client-sent PEER_HEADER with `req.socket.remoteAddress` (or remove it when the
 * socket has no address any more), in both `req.headers` and `req.rawHeaders`.
 * @param {import('node:http').IncomingMessage} req
 */
export function stampPeer(req) {
  const peer = req.socket?.remoteAddress;
  const raw = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== PEER_HEADER) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  if (peer) raw.push(PEER_HEADER, peer);
  req.rawHeaders = raw;
  if (peer) req.headers[PEER_HEADER] = peer;
  else delete req.headers[PEER_HEADER];
}

/**
 * A Node request listener that stamps the peer address and then hands the request to
 * `handle` (Next's request handler). Marks this process as served by the front.
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown} handle
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>}
 */
export function withPeerHeader(handle) {
  globalThis[MARK] = true;
  return async (req, res) => {
    stampPeer(req);
    await handle(req, res);
  };
}

/**
 * Whether this process serves HTTP through withPeerHeader. Only then is PEER_HEADER
 * believed: under a plain `next start` nothing overwrites it, so a client could pick it.
 * @returns {boolean}
 */
export function servedByFront() {
  return globalThis[MARK] === true;
}
