import { isIP } from 'node:net';

/**
 * The bucket name for a caller's network address, used by login throttling and the
 * aggregated failed-login audit rows.
 *
 * Under `next start` a route handler gets a fetch `Request` and nothing of the socket: Next
 * only copies the peer address into `X-Forwarded-For` when the client did not send that
 * header itself, so the header proves nothing unless a proxy we trust rewrites it. Hence:
 * - CRUCIBLE_TRUST_PROXY on: the last address in `X-Forwarded-For` (the hop the proxy
 *   appended; earlier entries are whatever the client claimed).
 * - off: the socket address when the adapter has one (standalone/Node adapters), else the
 *   fixed bucket `direct`, shared by every caller.
 * IPv6 addresses are bucketed by /64, since one host typically owns a whole /64.
 */
export function clientAddress(headers: Headers, opts: { trustProxy: boolean; socketAddress?: string | null }): string {
  if (opts.trustProxy) {
    const hops = (headers.get('x-forwarded-for') ?? '').split(',').map((h) => h.trim()).filter(Boolean);
    const last = hops.length ? normaliseAddress(hops[hops.length - 1]!) : null;
    if (last) return last;
  }
  return (opts.socketAddress && normaliseAddress(opts.socketAddress)) || 'direct';
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
  const [head, tail] = noZone.includes('::') ? noZone.split('::') as [string, string] : [noZone, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => (g.includes('.') ? g : g.replace(/^0+(?=.)/, '')));
}
