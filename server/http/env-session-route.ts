import type { Settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { createContext } from '@/server/context';
import { createCaller } from '@/server/routers';
import { formatBytes, withBodyLimit } from './body-limit';
import { plainJsonError, plainJsonFail } from './plain-json-error';
import { refuseCrossSite } from './same-origin';

/**
 * POST /api/v1/environments/{reset,step,grade,close,session} with a plain JSON body and
 * `Authorization: Bearer <token>`: the step API for trainers that do not speak tRPC's
 * encoding (docs/agents.md has a Python client using only the standard library). Each action
 * calls the `environments.*` procedure of the same name: same roles, validation and audit.
 */
export const ENV_SESSION_ACTIONS = ['reset', 'step', 'grade', 'close', 'session'] as const;
type Action = (typeof ENV_SESSION_ACTIONS)[number];
const isAction = (a: string): a is Action => (ENV_SESSION_ACTIONS as readonly string[]).includes(a);

/** A step carries at most a few files' contents: well above that, the body is refused unread. */
const BODY_LIMIT = 8 * 1024 * 1024;

class BodyTooLarge extends Error {}

export function envSessionRoute(database: () => Promise<Db>, settings: Pick<Settings, 'CRUCIBLE_TRUST_PROXY'>) {
  const trustProxy = settings.CRUCIBLE_TRUST_PROXY;
  return async function POST(req: Request, { params }: { params: Promise<{ action: string }> }): Promise<Response> {
    const crossSite = refuseCrossSite(req, trustProxy);
    if (crossSite) return crossSite;
    const { action } = await params;
    if (!isAction(action)) return plainJsonFail(404, 'NOT_FOUND', `no step API action "${action}"; the actions are ${ENV_SESSION_ACTIONS.join(', ')}`);
    const db = await database();
    const ctx = await createContext(db, req, new Headers(), { trustProxy });
    if (!ctx.user) return plainJsonFail(401, 'UNAUTHORIZED', 'send Authorization: Bearer <token> (create one with `crucible tokens create`)');
    let body: unknown;
    try {
      const text = await withBodyLimit(req, BODY_LIMIT, () => new BodyTooLarge()).text();
      body = text.trim() === '' ? {} : JSON.parse(text);
    } catch (e) {
      if (e instanceof BodyTooLarge) return plainJsonFail(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${formatBytes(BODY_LIMIT)}`);
      if (e instanceof SyntaxError) return plainJsonFail(400, 'BAD_REQUEST', `the request body is not JSON: ${e.message}`);
      throw e;
    }
    try {
      const env = createCaller(ctx).environments;
      const input = body as never;
      const result =
        action === 'reset'
          ? await env.reset(input)
          : action === 'step'
            ? await env.step(input)
            : action === 'grade'
              ? await env.grade(input)
              : action === 'close'
                ? await env.close(input)
                : await env.session(input);
      return Response.json(result);
    } catch (e) {
      return plainJsonError(e, `POST /api/v1/environments/${action}`);
    }
  };
}
