import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { PACKAGE_ANCHOR, TEMPLATE_BUDGET_MODULE } from './hf-files';
import type { TemplateLimits } from './template-budget.cjs';

/**
 * Chat templates rendered within limits (docs/security.md, "Model import"). A chat template is
 * a program that arrives with a downloaded model: `{% for i in range(4000000) %}` blocked the
 * web server's event loop for 13 s per page view, and one filter call (`|sort` over a list of
 * references to a long string, `|tojson` of a structure that repeats itself) can run for hours
 * in a single interpreter step. So a render runs on a helper thread that the caller waits for
 * synchronously (Atomics.wait, then receiveMessageOnPort: renderers stay synchronous), and:
 * - inside it, @huggingface/jinja's interpreter is counted (template-budget.cjs): steps,
 *   characters and list items produced, a wall-clock ceiling, `range()` bounded; past them the
 *   template fails with a message saying which;
 * - around it, a hard ceiling: a render still running (or a thread that ran out of its heap)
 *   `HARD_MARGIN_MS` past the budget's clock is terminated, which V8 does even mid-filter.
 * Either way the caller gets TemplateLimitError, and any other exception the template raises
 * is a TemplateRenderError: both are the model's configuration (import refused, episode job
 * failed for good), never a hang and never a transient error to retry.
 */

export type { TemplateLimits };

/**
 * Measured with the Hermes-style tool template (test/models.ts) on a 30-turn agent conversation
 * (500-character turns, 2,000-character observations): 1,576 steps and 605,268 characters
 * produced, 2 ms. The limits are three and two orders of magnitude above; reaching the step
 * limit takes about 1.5 s on this 2-core host.
 */
export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { steps: 2_000_000, chars: 64 * 1024 * 1024, ms: 10_000 };

/** How long past the budget's own clock a render may run before its thread is terminated. */
const HARD_MARGIN_MS = 5_000;
/** The render thread's heap: a template building a huge value runs out of it, not of the process's. */
const HEAP_MB = 1024;
/** A new thread loads jinja before its first render: allowed on top, once. */
const STARTUP_MS = 30_000;

/** A template's own error (raise_exception, a bad filter argument, …): deterministic, so the model's configuration. */
export class TemplateRenderError extends Error {
  override name = 'TemplateRenderError';
}

/** The template exceeded its limits (steps, characters, time or memory). */
export class TemplateLimitError extends TemplateRenderError {
  override name = 'TemplateLimitError';
}

const WORKER = `
const { workerData: w } = require('node:worker_threads');
const done = new Int32Array(w.signal);
let jinja, render, broken;
try {
  const req = require('node:module').createRequire(w.base);
  jinja = req('@huggingface/jinja');
  render = req(w.budget).installTemplateBudget(jinja);
} catch (e) {
  broken = String((e && e.message) || e);
}
const templates = new Map();
w.port.on('message', (m) => {
  let reply;
  try {
    if (broken) throw Object.assign(new Error('the template render thread could not start: ' + broken), { name: 'RenderThreadError' });
    let t = templates.get(m.source);
    if (!t) {
      t = new jinja.Template(m.source);
      templates.set(m.source, t);
      if (templates.size > 4) templates.delete(templates.keys().next().value);
    }
    reply = { id: m.id, text: render(t, m.items, m.limits) };
  } catch (e) {
    reply = { id: m.id, error: { name: (e && e.name) || 'Error', message: String((e && e.message) || e) } };
  }
  w.port.postMessage(reply);
  Atomics.store(done, 0, 1);
  Atomics.notify(done, 0);
});
`;

type Reply = { id: number; text?: string; error?: { name: string; message: string } };

class RenderThread {
  private worker?: Worker;
  private port?: MessagePort;
  private done?: Int32Array;
  private started = false;
  private next = 1;

  private ensure(): { port: MessagePort; done: Int32Array; fresh: boolean } {
    if (this.worker && this.port && this.done) return { port: this.port, done: this.done, fresh: !this.started };
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        base: PACKAGE_ANCHOR,
        budget: TEMPLATE_BUDGET_MODULE,
        port: port2,
        signal,
      },
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 64 },
      stdout: true,
      stderr: true,
    });
    this.worker.unref();
    port1.unref();
    this.worker.on('error', () => this.reset());
    this.port = port1;
    this.done = new Int32Array(signal);
    this.started = false;
    return { port: port1, done: this.done, fresh: true };
  }

  private reset(): void {
    const w = this.worker;
    this.worker = undefined;
    this.port?.close();
    this.port = undefined;
    this.done = undefined;
    if (w) void w.terminate();
  }

  render(source: string, items: Record<string, unknown>, limits: TemplateLimits): string {
    const { port, done, fresh } = this.ensure();
    const id = this.next++;
    Atomics.store(done, 0, 0);
    port.postMessage({ id, source, items, limits });
    const ceiling = limits.ms + HARD_MARGIN_MS + (fresh ? STARTUP_MS : 0);
    const deadline = Date.now() + ceiling;
    let reply: Reply | undefined;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      Atomics.wait(done, 0, 0, left);
      const got = receiveMessageOnPort(port)?.message as Reply | undefined;
      if (got?.id === id) {
        reply = got;
        break;
      }
      if (Atomics.load(done, 0) === 1) Atomics.store(done, 0, 0); // a stale reply: wait on
    }
    if (!reply) {
      this.reset();
      throw new TemplateLimitError(
        `the chat template did not finish rendering within ${ceiling} ms (or ran out of its ${HEAP_MB} MB heap) and was stopped; ` +
          'it loops or builds values without bound: fix or replace the template (tokenizer_config.json chat_template, or chat_template.jinja)',
      );
    }
    this.started = true;
    if (reply.error?.name === 'RenderThreadError') {
      // this host's installation, not the template: an ordinary error (a worker's job is retried elsewhere)
      this.reset();
      throw new Error(reply.error.message);
    }
    if (reply.error)
      throw reply.error.name === 'TemplateLimitError' ? new TemplateLimitError(reply.error.message) : new TemplateRenderError(reply.error.message);
    return reply.text!;
  }
}

const thread = new RenderThread();

/**
 * The template `source` (already parsed once by the caller, so syntax errors surface there)
 * rendered with `items` within `limits`, on the render thread. `items` must be structured-
 * cloneable (messages, tools, token strings). TemplateLimitError / TemplateRenderError as above.
 */
export function renderBounded(source: string, items: Record<string, unknown>, limits: TemplateLimits = DEFAULT_TEMPLATE_LIMITS): string {
  return thread.render(source, items, limits);
}
