import { TRPCClientError } from '@trpc/client';
import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { describeIssues } from '@/server/errors';
import { CliError } from './args';

/**
 * A failed API call as a CLI error (exit 1), or undefined when `e` is not one. In-process the
 * client error wraps the procedure's own TRPCError: its message is reported (the HTTP error
 * formatter would replace an internal error's message with an id into a server log the local
 * operator does not have) and bad input lists the zod issues, as over HTTP.
 */
export function apiError(e: unknown): CliError | undefined {
  if (!(e instanceof TRPCClientError)) return undefined;
  const cause: unknown = e.cause;
  if (cause instanceof TRPCError) {
    return new CliError(cause.cause instanceof ZodError ? `invalid input: ${describeIssues(cause.cause.issues)}` : cause.message, 1);
  }
  return new CliError(e.message, 1);
}
