'use strict';

/**
 * The counting behind bounded chat templates (bounded-template.ts; docs/security.md, "Model
 * import"), in plain CommonJS so the isolated inspection thread (isolated-inspection.ts, an eval
 * worker with no TypeScript loader) requires the very same file the workers import.
 *
 * installTemplateBudget(jinja) wraps @huggingface/jinja's interpreter entry points (`evaluate`,
 * `renderBlock`) and the `range` global of each new Environment, and returns
 * render(template, items, limits): interpreter steps, characters and list items produced over
 * the whole render, and a wall-clock ceiling are counted; past any of them it throws an Error
 * named TemplateLimitError. The budget stays active after a failure, so a caught error cannot
 * let a template run on.
 */
function installTemplateBudget(lib) {
  let active = null;
  const fail = (b, what) => {
    const e = new Error(
      `the chat template ${what} (limits: ${b.limits.steps} steps, ${b.limits.chars} characters, ${b.limits.ms} ms); ` +
        'it loops or builds text without bound: fix or replace the template (tokenizer_config.json chat_template, or chat_template.jinja)',
    );
    e.name = 'TemplateLimitError';
    return e;
  };
  const tick = (b) => {
    if (++b.steps > b.limits.steps) throw fail(b, `took more than ${b.limits.steps} steps`);
    if ((b.steps & 4095) === 0 && Date.now() > b.deadline) throw fail(b, `ran longer than ${b.limits.ms} ms`);
  };
  const produced = (b, v) => {
    const inner = v !== null && typeof v === 'object' && 'value' in v ? v.value : v;
    const n = typeof inner === 'string' || Array.isArray(inner) ? inner.length : 0;
    if ((b.chars += n) > b.limits.chars) throw fail(b, `produced more than ${b.limits.chars} characters and list items`);
  };
  const proto = lib.Interpreter.prototype;
  if (!proto.__crucibleBudget) {
    const evaluate = proto.evaluate;
    const renderBlock = proto.renderBlock;
    proto.evaluate = function (...a) {
      if (active) tick(active);
      const v = evaluate.apply(this, a);
      if (active) produced(active, v);
      return v;
    };
    proto.renderBlock = function (...a) {
      if (active) tick(active);
      const v = renderBlock.apply(this, a);
      if (active) produced(active, v);
      return v;
    };
    // Template.render sets the globals' range() on each new Environment: swapped for the bounded one
    const env = lib.Environment.prototype;
    const set = env.set;
    env.set = function (name, value) {
      return set.call(this, name, active && name === 'range' ? active.range : value);
    };
    Object.defineProperty(proto, '__crucibleBudget', { value: true });
  }
  return (template, items, limits) => {
    // jinja's own range(), refusing a list longer than the step budget could walk
    const range = (start, stop, step = 1) => {
      if (stop === undefined) {
        stop = start;
        start = 0;
      }
      if (step === 0) throw new Error('range() step must not be zero');
      const n = Math.max(0, Math.ceil((stop - start) / step));
      if (n > limits.steps) throw fail(b, `asked for range() of ${n} items`);
      const out = [];
      for (let i = 0; i < n; i++) out.push(start + i * step);
      return out;
    };
    const b = { steps: 0, chars: 0, deadline: Date.now() + limits.ms, limits, range };
    active = b;
    try {
      return template.render(items);
    } finally {
      active = null;
    }
  };
}

module.exports = { installTemplateBudget };
