import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { z } from 'zod';
import { can, type Capability } from '@/core/roles';
import type { Settings } from '@/core/settings';
import type { Db } from '@/db/client';
import { createContext } from '@/server/context';
import { describeIssues, DomainError } from '@/server/errors';
import { chatCompletion, textCompletion, type StreamSink } from '@/server/inference/completions';
import { chatCompletionRequest, completionRequest } from '@/server/inference/openai-schema';
import { listModels } from '@/server/models/service';
import { servableRuns } from '@/server/inference/servable-runs';
import { formatBytes, withBodyLimit } from './body-limit';
import { internalErrorMessage, reportInternalError } from './internal-error';
import { refuseCrossSite } from './same-origin';

// The OpenAI-compatible endpoint's HTTP side (docs/policy.md): /api/v1/models, /api/v1/chat/completions
// and /api/v1/completions, bearer-token authenticated, errors in OpenAI's shape, streaming as
// server-sent events ending in `data: [DONE]`. The official `openai` client is the test's caller.

const BODY_LIMIT = 8 * 1024 * 1024;
class BodyTooLarge extends Error {}

/** OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`. */
const fail = (status: number, message: string, code: string) =>
  Response.json({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code } }, { status });

const codeOf = (e: DomainError) => getHTTPStatusCodeFromError(new TRPCError({ code: e.code, message: e.message }));

type Authed = { db: Db } | { refused: Response };

async function authorise(database: () => Promise<Db>, req: Request, trustProxy: boolean, capability: Capability): Promise<Authed> {
  const crossSite = refuseCrossSite(req, trustProxy);
  if (crossSite) return { refused: crossSite };
  const db = await database();
  const ctx = await createContext(db, req, new Headers(), { trustProxy });
  if (!ctx.user) return { refused: fail(401, 'send Authorization: Bearer <token> (create one with `crucible tokens create`)', 'invalid_api_key') };
  if (!can(ctx.user.role, capability))
    return { refused: fail(403, `your role (${ctx.user.role}) cannot sample from models; ask an admin for operator access`, 'permission_denied') };
  return { db };
}

async function readJson<S extends z.ZodType>(req: Request, schema: S): Promise<{ value: z.output<S> } | { refused: Response }> {
  let body: unknown;
  try {
    body = JSON.parse(await withBodyLimit(req, BODY_LIMIT, () => new BodyTooLarge()).text());
  } catch (e) {
    if (e instanceof BodyTooLarge) return { refused: fail(413, `the request body is larger than ${formatBytes(BODY_LIMIT)}`, 'payload_too_large') };
    return { refused: fail(400, `the request body is not JSON: ${(e as Error).message}`, 'invalid_json') };
  }
  const r = schema.safeParse(body);
  if (!r.success) return { refused: fail(400, `invalid request: ${describeIssues(r.error.issues)}`, 'invalid_request') };
  return { value: r.data };
}

function errorResponse(e: unknown, where: string): Response {
  if (e instanceof DomainError) return fail(codeOf(e), e.message, e.code === 'NOT_FOUND' ? 'model_not_found' : e.code.toLowerCase());
  return fail(500, internalErrorMessage(reportInternalError(e, where)), 'internal_error');
}

/**
 * A completion as JSON, or as server-sent events when the request says `stream`. A client that
 * goes away (the request aborted, the stream cancelled) stops the generation, so the model's
 * queue moves on.
 */
function respond(
  req: Request,
  stream: boolean,
  where: string,
  run: (sink: StreamSink | undefined, signal: AbortSignal) => Promise<Record<string, unknown>>,
): Promise<Response> {
  const gone = new AbortController();
  const signal = AbortSignal.any([req.signal, gone.signal]);
  if (!stream)
    return run(undefined, signal).then(
      (body) => Response.json(body),
      (e: unknown) => errorResponse(e, where),
    );
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (data: unknown) => {
        try {
          controller.enqueue(enc.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`));
        } catch {
          gone.abort(); // the stream is closed: nobody reads what follows
        }
      };
      const close = () => {
        try {
          controller.close();
        } catch {
          // cancelled already
        }
      };
      run(send, signal).then(
        () => {
          send('[DONE]');
          close();
        },
        (e: unknown) => {
          // the status line is sent already: the error travels as an event, as OpenAI's own stream does
          const status = e instanceof DomainError ? codeOf(e) : 500;
          const message = e instanceof DomainError ? e.message : internalErrorMessage(reportInternalError(e, where));
          send({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: String(status) } });
          close();
        },
      );
    },
    cancel() {
      gone.abort();
    },
  });
  return Promise.resolve(
    new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' } }),
  );
}

export function openAiRoutes(database: () => Promise<Db>, settings: Pick<Settings, 'CRUCIBLE_TRUST_PROXY'>) {
  const trustProxy = settings.CRUCIBLE_TRUST_PROXY;
  /** A sampling route: an operator's token, the body checked by `schema`, then `run` as JSON or a stream. */
  const completionRoute =
    <S extends z.ZodType<{ stream: boolean }>>(
      schema: S,
      path: string,
      run: (db: Db, body: z.output<S>, sink: StreamSink | undefined, signal: AbortSignal) => Promise<Record<string, unknown>>,
    ) =>
    async (req: Request): Promise<Response> => {
      const a = await authorise(database, req, trustProxy, 'operateRuns');
      if ('refused' in a) return a.refused;
      const body = await readJson(req, schema);
      if ('refused' in body) return body.refused;
      return respond(req, body.value.stream, `POST ${path}`, (sink, signal) => run(a.db, body.value, sink, signal));
    };
  return {
    /** GET /api/v1/models: the registered models. */
    models: async (req: Request): Promise<Response> => {
      const a = await authorise(database, req, trustProxy, 'read');
      if ('refused' in a) return a.refused;
      const rows = await listModels(a.db);
      const runPolicies = await servableRuns(a.db);
      return Response.json({
        object: 'list',
        data: [
          ...rows.map((m) => ({ id: m.name, object: 'model', created: Math.floor(m.createdAt.getTime() / 1000), owned_by: 'crucible' })),
          ...runPolicies.map((r) => ({
            id: `run:${r.id}`,
            object: 'model',
            created: Math.floor(r.createdAt.getTime() / 1000),
            owned_by: 'crucible',
            root: r.model,
            name: r.name,
          })),
        ],
      });
    },
    /** POST /api/v1/chat/completions */
    chatCompletions: completionRoute(chatCompletionRequest, '/api/v1/chat/completions', chatCompletion),
    /** POST /api/v1/completions */
    completions: completionRoute(completionRequest, '/api/v1/completions', textCompletion),
  };
}
