/**
 * An expected failure of a domain operation, with a message for the user. The tRPC layer
 * maps `code` to the matching TRPCError in one place (server/trpc.ts `mapErrors`; routers
 * never catch); the CLI prints the message. `retryAt`: when trying again may succeed
 * (sent as Retry-After).
 */
export class DomainError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'CONFLICT' | 'BAD_REQUEST' | 'FORBIDDEN' | 'PRECONDITION_FAILED' | 'UNAUTHORIZED' | 'TOO_MANY_REQUESTS' | 'TIMEOUT',
    message: string,
    readonly retryAt?: Date,
  ) {
    super(message);
  }
}

/** "field.path: message; other: message" — one line a person can act on. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(input)'}: ${i.message}`).join('; ');
}
