/**
 * CSRF defence for state-changing requests: a browser always sends `Origin` on a cross-site
 * POST (and `Sec-Fetch-Site` in current browsers), so one that names another site is refused.
 * Requests with neither header come from the CLI or automation, which cannot be made to carry
 * someone else's cookie, and stay allowed. We compare hosts only, not schemes: behind a TLS
 * proxy the browser says https while the request we see is http.
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The host the client addressed: `X-Forwarded-Host` behind a trusted proxy, else `Host`. */
function requestHost(req: Request, trustProxy: boolean): string {
  const forwarded = trustProxy ? req.headers.get('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  return (forwarded || req.headers.get('host') || new URL(req.url).host).toLowerCase();
}

/** Why a request is refused as cross-site, or null when it may proceed. */
export function crossSiteReason(req: Request, trustProxy: boolean): string | null {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const fetchSite = req.headers.get('sec-fetch-site')?.toLowerCase();
  // same-site (another subdomain) counts as foreign: sibling hosts are not necessarily ours.
  if (fetchSite && fetchSite !== 'same-origin' && fetchSite !== 'none') return `Sec-Fetch-Site is ${fetchSite}`;
  const origin = req.headers.get('origin');
  if (origin === null) return null;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return `Origin "${origin}" is not a URL`;
  }
  const host = requestHost(req, trustProxy);
  return originHost === host ? null : `Origin ${originHost} is not this server (${host})`;
}

/** The message a refused client gets (tRPC and plain routes alike). */
export const crossSiteMessage = (reason: string) =>
  `cross-site request refused (${reason}); use the console on this server's own address, or call the API without a browser (CLI or bearer token)`;

/** A 403 for a cross-site state-changing request, or null. For plain route handlers. */
export function refuseCrossSite(req: Request, trustProxy: boolean): Response | null {
  const reason = crossSiteReason(req, trustProxy);
  return reason ? Response.json({ error: { message: crossSiteMessage(reason), code: 'FORBIDDEN' } }, { status: 403 }) : null;
}
