import { isIP } from 'node:net';
import { PEER_HEADER, servedByFront } from '@/server/http/peer-header.mjs';

/**
 * The bucket name for a caller's network address, used by login throttling and the
 * aggregated failed-login audit rows.
 *
 * A route handler gets a fetch `Request` and nothing of the socket, and Next only copies the
 * peer address into `X-Forwarded-For` when the client did not send that header itself, so
 * that header proves nothing unless a proxy we trust rewrites it. Hence:
 * - CRUCIBLE_TRUST_PROXY on: the last address in `X-Forwarded-For` (the hop the proxy
 *   appended; earlier entries are whatever the client claimed).
 * - off (or no usable X-Forwarded-For): `socketAddress`, which the web context takes from
 *   frontPeerAddress; without one (in-process callers, tests calling the route directly, a
 *   plain `next start`) the fixed bucket `direct`, shared by every such caller.
 * IPv6 addresses are bucketed by /64, since one host typically owns a whole /64.
 */
export function clientAddress(headers: Headers, opts: { trustProxy: boolean; socketAddress?: string | null }): string {
  if (opts.trustProxy) {
    const hops = (headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const last = hops.length ? normaliseAddress(hops[hops.length - 1]!) : null;
    if (last) return last;
  }
  return (opts.socketAddress && normaliseAddress(opts.socketAddress)) || 'direct';
}

/**
 * The TCP peer of the request, as our HTTP front (scripts/web-server.mjs, what `npm start`
 * runs) wrote it into PEER_HEADER. Believed only because the front overwrites that header
 * on every request, deleting any value the client sent; in a process not served by the front
 * the header is ignored (null), since nothing there stops a client from choosing it.
 */
export function frontPeerAddress(headers: Headers): string | null {
  return servedByFront() ? headers.get(PEER_HEADER) : null;
}

/** A canonical bucket for an IP literal, or null when it is not one. */
export function normaliseAddress(raw: string): string | null {
  let a = raw.trim();
  // `[v6]:port` and `v4:port` forms some proxies write.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  const kind = isIP(a);
  if (kind === 4) return a;
  if (kind === 6) return `${expandV6(a).slice(0, 4).join(':')}::/64`;
  return null;
}

function expandV6(a: string): string[] {
  const noZone = a.split('%')[0]!.toLowerCase();
  const [head, tail] = noZone.includes('::') ? (noZone.split('::') as [string, string]) : [noZone, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => (g.includes('.') ? g : g.replace(/^0+(?=.)/, '')));
}
