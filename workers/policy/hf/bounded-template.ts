import * as jinja from '@huggingface/jinja';

/**
 * Chat templates rendered within limits (docs/security.md, "Model import"). A chat template is
 * a program that arrives with a downloaded model: `{% for i in range(4000000) %}` blocked the
 * web server's event loop for 13 s per page view, and a template can loop or grow a string
 * without bound. @huggingface/jinja has no limits of its own, so its interpreter's two entry
 * points (`evaluate`, `renderBlock`) are counted: interpreter steps, characters and list items
 * produced in all, and a wall-clock ceiling; `range()` refuses more items than the step budget
 * could iterate. Past a limit the render throws TemplateLimitError, which callers report as a
 * configuration error of the model (import refused, episode failed), never a hang.
 */

export type TemplateLimits = {
  /** interpreter steps (expressions evaluated + statements rendered) */
  steps: number;
  /** characters of text plus list items produced over the whole render */
  chars: number;
  /** a wall-clock ceiling in milliseconds (a safety net: the step budget decides first on an idle host) */
  ms: number;
};

/**
 * Real templates render a 30-turn agent conversation in ~10⁴ steps and well under a megabyte
 * produced (Qwen3's, the longest vendored one); the limits are two orders of magnitude above.
 */
export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { steps: 2_000_000, chars: 64 * 1024 * 1024, ms: 10_000 };

export const TEMPLATE_LIMIT_ERROR = 'TemplateLimitError';

export class TemplateLimitError extends Error {
  override name = TEMPLATE_LIMIT_ERROR;
}

type Jinja = Pick<typeof jinja, 'Interpreter' | 'Environment'>;
type Render = (template: Pick<jinja.Template, 'render'>, items: Record<string, unknown>, limits: TemplateLimits) => string;

/**
 * Install the counting on `lib`'s interpreter and return a bounded render. Self-contained (it
 * uses only its argument and globals) so the isolated inspection thread can run the very same
 * code from its source text (isolated-inspection.ts).
 */
export function installTemplateBudget(lib: Jinja): Render {
  type Budget = { steps: number; chars: number; deadline: number; limits: TemplateLimits; range: (...a: number[]) => number[] };
  let active: Budget | null = null;
  // the budget stays active after a failure: a caught error must not let the template run on
  const fail = (b: Budget, what: string) => {
    const e = new Error(
      `the chat template ${what} (limits: ${b.limits.steps} steps, ${b.limits.chars} characters, ${b.limits.ms} ms); ` +
        'it loops or builds text without bound: fix or replace the template (tokenizer_config.json chat_template, or chat_template.jinja)',
    );
    e.name = 'TemplateLimitError';
    return e;
  };
  const tick = (b: Budget) => {
    if (++b.steps > b.limits.steps) throw fail(b, `took more than ${b.limits.steps} steps`);
    if ((b.steps & 4095) === 0 && Date.now() > b.deadline) throw fail(b, `ran longer than ${b.limits.ms} ms`);
  };
  const produced = (b: Budget, v: unknown) => {
    const inner = v !== null && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v;
    const n = typeof inner === 'string' || Array.isArray(inner) ? inner.length : 0;
    if ((b.chars += n) > b.limits.chars) throw fail(b, `produced more than ${b.limits.chars} characters and list items`);
  };
  const proto = lib.Interpreter.prototype as unknown as Record<string, (...a: unknown[]) => unknown> & { __crucibleBudget?: boolean };
  if (!proto.__crucibleBudget) {
    const evaluate = proto.evaluate!;
    const renderBlock = proto.renderBlock!;
    proto.evaluate = function (this: unknown, ...a: unknown[]) {
      if (active) tick(active);
      const v = evaluate.apply(this, a);
      if (active) produced(active, v);
      return v;
    };
    proto.renderBlock = function (this: unknown, ...a: unknown[]) {
      if (active) tick(active);
      const v = renderBlock.apply(this, a);
      if (active) produced(active, v);
      return v;
    };
    // the globals' range() (set by Template.render on each new Environment) swapped for the bounded one
    const env = lib.Environment.prototype as unknown as { set: (name: string, value: unknown) => unknown };
    const set = env.set;
    env.set = function (this: unknown, name: string, value: unknown) {
      return set.call(this, name, active && name === 'range' ? active.range : value);
    };
    Object.defineProperty(proto, '__crucibleBudget', { value: true });
  }
  return (template, items, limits) => {
    // jinja's own range(), refusing a list longer than the step budget could walk
    const range = (start: number, stop?: number, step = 1) => {
      if (stop === undefined) {
        stop = start;
        start = 0;
      }
      if (step === 0) throw new Error('range() step must not be zero');
      const n = Math.max(0, Math.ceil((stop - start) / step));
      if (n > limits.steps) throw fail(b, `asked for range() of ${n} items`);
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push(start + i * step);
      return out;
    };
    const b: Budget = { steps: 0, chars: 0, deadline: Date.now() + limits.ms, limits, range: range as Budget['range'] };
    active = b;
    try {
      return template.render(items);
    } finally {
      active = null;
    }
  };
}

let render: Render | undefined;

/** `template` rendered with `items` within `limits`; TemplateLimitError past them. */
export function renderBounded(template: jinja.Template, items: Record<string, unknown>, limits: TemplateLimits = DEFAULT_TEMPLATE_LIMITS): string {
  render ??= installTemplateBudget(jinja);
  try {
    return render(template, items, limits);
  } catch (e) {
    if ((e as Error).name === TEMPLATE_LIMIT_ERROR) throw new TemplateLimitError((e as Error).message);
    throw e;
  }
}
