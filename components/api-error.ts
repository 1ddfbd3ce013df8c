import { TRPCClientError } from '@trpc/client';

// What server/trpc.ts's errorFormatter puts in `data` that the UI reads.
type ErrorShapeData = {
  code?: string;
  issues?: { path: (string | number)[]; message: string }[] | null;
};

/** The tRPC error code (UNAUTHORIZED, FORBIDDEN, BAD_REQUEST, ...) if the server sent one. */
export function errorCode(error: unknown): string | undefined {
  if (error instanceof TRPCClientError) return (error.data as ErrorShapeData | undefined)?.code;
  return undefined;
}

type Issue = { path: (string | number)[]; message: string };

/**
 * Validation issues from a BAD_REQUEST: our errorFormatter (server/trpc.ts) sends zod's issues
 * (full paths) in `data.issues`; a BAD_REQUEST a service refused (a DomainError) has none.
 */
export function validationIssues(error: unknown): Issue[] {
  if (!(error instanceof TRPCClientError)) return [];
  const data = error.data as ErrorShapeData | undefined;
  if (data?.code !== 'BAD_REQUEST' || !data.issues) return [];
  return data.issues.map((i) => ({ path: i.path, message: i.message }));
}

/** A one-line description of what went wrong, readable by an operator. */
export function errorMessage(error: unknown): string {
  const issues = validationIssues(error);
  if (issues.length) return issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
  if (error instanceof Error) return error.message;
  return String(error);
}

/** What the user can do about it. */
export function errorHint(error: unknown): string {
  switch (errorCode(error)) {
    case 'UNAUTHORIZED':
      return 'Your session has ended. Sign in again.';
    case 'FORBIDDEN':
      // blind review (server/reviews/blind.ts): the role allows it, an open blind item does not
      if (error instanceof Error && /blind review item open/.test(error.message))
        return 'Hidden while you have a blind review item open: submit its verdict or release it (Review page), then reload.';
      return 'Your role does not allow this. Ask an admin to change your role if you need it.';
    case 'NOT_FOUND':
      return 'It may have been deleted, or the link is wrong. Go back to the list and pick it again.';
    case 'BAD_REQUEST':
      return 'Correct the values shown and try again.';
    case 'CONFLICT':
    case 'PRECONDITION_FAILED':
      return 'The object changed meanwhile. Reload the page to see its current state.';
    case 'INTERNAL_SERVER_ERROR':
      // The message carries an error id (server/http/internal-error.ts); the details are only in the log.
      return 'The server failed. Retry; if it keeps failing, give an admin the error id: the server log (the terminal running `npm start`) has the details under it.';
    case 'PAYLOAD_TOO_LARGE':
      return 'Send less at once; import large task files with `crucible tasks import`.';
    case undefined:
      return 'Cannot reach the Crucible server. Check that `npm start` is still running, then retry.';
    default:
      return 'Retry; if it keeps failing, check the server log.';
  }
}
