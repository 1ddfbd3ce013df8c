import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { SESSION_COOKIE } from '@/server/auth/identity';
import { clearedSessionCookie, login, LoginError, logout, sessionCookie } from '@/server/auth/sessions';
import { publicProcedure, router } from '@/server/trpc';

export const authRouter = router({
  login: publicProcedure
    .input(z.object({ username: z.string().min(1, 'enter your username').max(64), password: z.string().min(1, 'enter your password').max(200) }))
    .mutation(async ({ ctx, input }) => {
      try {
        const s = await login(ctx.db, input.username.trim().toLowerCase(), input.password);
        ctx.resHeaders?.append('Set-Cookie', sessionCookie(s.token, s.expiresAt, !!ctx.secureCookies));
        return s.user;
      } catch (e) {
        if (e instanceof LoginError) throw new TRPCError({ code: 'UNAUTHORIZED', message: e.message });
        throw e;
      }
    }),
  logout: publicProcedure.mutation(async ({ ctx }) => {
    const cookie = ctx.reqHeaders?.get('cookie')?.split(';').map((p) => p.trim()).find((p) => p.startsWith(`${SESSION_COOKIE}=`));
    await logout(ctx.db, cookie ? decodeURIComponent(cookie.slice(SESSION_COOKIE.length + 1)) : undefined);
    ctx.resHeaders?.append('Set-Cookie', clearedSessionCookie());
    return { ok: true };
  }),
  me: publicProcedure.query(({ ctx }) =>
    ctx.user ? { id: ctx.user.id, username: ctx.user.username, role: ctx.user.role, displayName: ctx.user.displayName } : null),
});
