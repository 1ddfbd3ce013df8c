import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { SESSION_COOKIE } from '@/server/auth/identity';
import { changeOwnPassword, changePasswordSchema } from '@/server/auth/password-change';
import { clearedSessionCookie, login, logout, sessionCookie } from '@/server/auth/sessions';
import type { Context } from '@/server/context';
import { publicProcedure, router } from '@/server/trpc';

// Wrong credentials (LoginError, 401) and throttled callers (ThrottledError, 429 with the
// time to retry in the message and a Retry-After header) are domain errors: mapped by
// server/trpc.ts mapErrors, not caught here.

const source = (ctx: Context) => ctx.clientAddress ?? 'direct';

export const authRouter = router({
  login: publicProcedure
    .input(z.object({ username: z.string().min(1, 'enter your username').max(64), password: z.string().min(1, 'enter your password').max(200) }))
    .mutation(async ({ ctx, input }) => {
      const s = await login(ctx.db, input.username.trim().toLowerCase(), input.password, source(ctx));
      ctx.resHeaders?.append('Set-Cookie', sessionCookie(s.token, s.expiresAt, !!ctx.secureCookies));
      return s.user;
    }),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    const cookie = ctx.reqHeaders
      ?.get('cookie')
      ?.split(';')
      .map((p) => p.trim())
      .find((p) => p.startsWith(`${SESSION_COOKIE}=`));
    await logout(ctx.db, cookie ? decodeURIComponent(cookie.slice(SESSION_COOKIE.length + 1)) : undefined);
    ctx.resHeaders?.append('Set-Cookie', clearedSessionCookie());
    return { ok: true };
  }),
  me: publicProcedure.query(({ ctx }) =>
    ctx.user
      ? {
          id: ctx.user.id,
          username: ctx.user.username,
          role: ctx.user.role,
          displayName: ctx.user.displayName,
          mustChangePassword: !!ctx.user.mustChangePassword,
        }
      : null,
  ),
  /**
   * Change your own password (public so a session forced to change can reach it; the caller
   * is checked here). Ends every session of the user; a session caller gets a new cookie.
   */
  changePassword: publicProcedure.input(changePasswordSchema).mutation(async ({ ctx, input }) => {
    if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'sign in first (or send Authorization: Bearer <token>)' });
    const { session, sessionsEnded } = await changeOwnPassword(ctx.db, ctx.user, input, source(ctx));
    if (session) ctx.resHeaders?.append('Set-Cookie', sessionCookie(session.token, session.expiresAt, !!ctx.secureCookies));
    return { ok: true, sessionsEnded };
  }),
});
