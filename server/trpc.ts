import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { z, ZodError } from 'zod';
import type { Context } from './context';
import { nulCharacterProblem } from '@/core/nul-characters';
import { capabilityDescriptions, rolesWith, type Capability } from '@/core/roles';
import { describeIssues, DomainError } from './errors';
import { internalErrorMessage, reportInternalError } from './http/internal-error';

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error, path }) {
    // Never sent: stack traces (tRPC adds them in development).
    const { stack: _stack, ...data } = shape.data;
    // Anything not mapped to a domain/validation error may carry SQL text and parameters:
    // the client gets an id, the server log the details.
    if (error.code === 'INTERNAL_SERVER_ERROR') {
      const errorId = reportInternalError(error, `tRPC ${path ?? '(unknown path)'}`);
      return { ...shape, message: internalErrorMessage(errorId), data: { ...data, zodError: null, issues: null, errorId } };
    }
    const zodError = error.cause instanceof ZodError ? error.cause : null;
    return {
      ...shape,
      // Field-level messages for forms and automation: {fieldErrors: {"groupSize": ["..."]}}
      message: zodError ? `invalid input: ${describeIssues(zodError.issues)}` : shape.message,
      data: { ...data, zodError: zodError ? z.flattenError(zodError) : null, issues: zodError?.issues ?? null, errorId: null },
    };
  },
});

/**
 * The one place errors are mapped (routers never catch): a domain error becomes the matching
 * tRPC error (with Retry-After when it says when to try again); a zod error thrown inside a
 * procedure is bad input; anything else is a 500 (message hidden by errorFormatter).
 */
const mapErrors = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof DomainError) {
    const cause = result.error.cause;
    if (cause.retryAt) ctx.resHeaders?.set('Retry-After', String(Math.max(1, Math.ceil((cause.retryAt.getTime() - Date.now()) / 1000))));
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  if (!result.ok && result.error.cause instanceof ZodError && result.error.code === 'INTERNAL_SERVER_ERROR') {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'invalid input', cause: result.error.cause });
  }
  return result;
});

/**
 * No input reaches a procedure with a NUL character in it: PostgreSQL cannot store or compare
 * one, so it would surface as an opaque 500 from the query. A 400 names the field instead.
 */
const refuseNulCharacters = t.middleware(async ({ getRawInput, next }) => {
  const problem = nulCharacterProblem(await getRawInput().catch(() => undefined));
  if (problem) throw new TRPCError({ code: 'BAD_REQUEST', message: `invalid input: ${problem}` });
  return next();
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors).use(refuseNulCharacters);

const authed = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in first (or send Authorization: Bearer <token>)' });
  // After an admin reset, a session may only change the password (auth.* procedures are public).
  if (ctx.user.mustChangePassword)
    throw new TRPCError({ code: 'FORBIDDEN', message: 'an admin reset your password: choose a new one first (Account page, or auth.changePassword)' });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** Procedures needing `capability`: the roles holding it come from the table in core/roles.ts, which the console reads too. */
function requireCapability(capability: Capability) {
  const roles = rolesWith[capability];
  return authed.use(({ ctx, next }) => {
    if (!roles.includes(ctx.user.role)) {
      throw new TRPCError({
        code: 'FORBIDDEN',
        message: `your role (${ctx.user.role}) cannot ${capabilityDescriptions[capability]}; ask an admin for ${roles.join(' or ')} access`,
      });
    }
    return next();
  });
}

/** Any signed-in user (read-only access). */
export const viewerProcedure = authed;
/** Launch and manage runs. */
export const operatorProcedure = requireCapability('operateRuns');
/** Review rewards. */
export const reviewerProcedure = requireCapability('review');
/** Manage users, tokens of others, settings. */
export const adminProcedure = requireCapability('manageUsers');
