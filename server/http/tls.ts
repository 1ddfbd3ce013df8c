/**
 * Whether the client reached us over TLS, for `Secure` cookies. The web server itself speaks
 * plain HTTP, so TLS means a reverse proxy in front; its `X-Forwarded-Proto` is believed only
 * with CRUCIBLE_TRUST_PROXY, because a client talking to us directly can send that header too
 * (and Next copies it into `req.url`, so the URL's scheme proves nothing either).
 */
export function servedOverTls(headers: Headers, trustProxy: boolean): boolean {
  if (!trustProxy) return false;
  return headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}
