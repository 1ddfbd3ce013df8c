import { randomBytes } from 'node:crypto';

/**
 * Unexpected failures (SQL errors, bugs) must not reach clients: their messages carry SQL
 * text, parameters and stack traces. Each gets a short id; the full error is logged here with
 * that id and the client sees only the id. Memoised per error object because tRPC calls both
 * the route's onError and the errorFormatter for the same error.
 */
const ids = new WeakMap<object, string>();

/** Where reported errors go: stderr, until the web process installs its structured logger (server/db.ts). */
type ErrorSink = (id: string, where: string, cause: unknown) => void;
let sink: ErrorSink = (id, where, cause) => console.error(`[error ${id}] ${where}:`, cause);
export function setInternalErrorSink(next: ErrorSink): void {
  sink = next;
}

/** Log `error` once (with its cause) under a fresh id; returns that id. */
export function reportInternalError(error: unknown, where: string): string {
  const key = typeof error === 'object' && error !== null ? error : null;
  const known = key ? ids.get(key) : undefined;
  if (known) return known;
  const id = randomBytes(6).toString('hex');
  if (key) ids.set(key, id);
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  sink(id, where, cause);
  return id;
}

/** What a client is told instead of the internal message. */
export const internalErrorMessage = (id: string) => `internal error (id ${id}); an admin can find the details in the server log`;
