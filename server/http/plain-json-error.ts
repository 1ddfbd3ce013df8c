import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';
import { describeIssues } from '@/server/errors';
import { internalErrorMessage, reportInternalError } from './internal-error';

/** A plain-JSON route's error body: `{"error": {"message", "code"}}` with the matching status. */
export const plainJsonFail = (status: number, code: string, message: string) => Response.json({ error: { message, code } }, { status });

/**
 * What a procedure called from a plain-JSON route threw, as the response a client gets: the
 * tRPC error's status and message (validation issues by field), and for anything unexpected
 * an error id (the details go to the server log, never to the client).
 */
export function plainJsonError(e: unknown, where: string): Response {
  const error = e instanceof TRPCError ? e : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: e });
  const status = getHTTPStatusCodeFromError(error);
  if (error.code === 'INTERNAL_SERVER_ERROR') return plainJsonFail(status, error.code, internalErrorMessage(reportInternalError(error, where)));
  const message = error.cause instanceof ZodError ? `invalid input: ${describeIssues(error.cause.issues)}` : error.message;
  return plainJsonFail(status, error.code, message);
}
