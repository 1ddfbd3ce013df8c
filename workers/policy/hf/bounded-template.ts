import * as jinja from '@huggingface/jinja';
import { installTemplateBudget, type TemplateLimits } from './template-budget.cjs';

/**
 * Chat templates rendered within limits (docs/security.md, "Model import"). A chat template is
 * a program that arrives with a downloaded model: `{% for i in range(4000000) %}` blocked the
 * web server's event loop for 13 s per page view, and a template can loop or grow a string
 * without bound. @huggingface/jinja has no limits of its own, so its interpreter's two entry
 * points (`evaluate`, `renderBlock`) are counted: interpreter steps, characters and list items
 * produced in all, and a wall-clock ceiling; `range()` refuses more items than the step budget
 * could iterate (the counting is template-budget.cjs, shared with the isolated inspection
 * thread). Past a limit the render throws TemplateLimitError, which callers report as a
 * configuration error of the model (import refused, episode failed), never a hang.
 */

export type { TemplateLimits };

/**
 * Measured with the Hermes-style tool template (test/models.ts) on a 30-turn agent conversation
 * (500-character turns, 2,000-character observations): 1,576 steps and 605,268 characters
 * produced, 2 ms. The limits are three and two orders of magnitude above; reaching the step
 * limit takes about 1.5 s on this 2-core host.
 */
export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { steps: 2_000_000, chars: 64 * 1024 * 1024, ms: 10_000 };

export const TEMPLATE_LIMIT_ERROR = 'TemplateLimitError';

export class TemplateLimitError extends Error {
  override name = TEMPLATE_LIMIT_ERROR;
}

type Render = ReturnType<typeof installTemplateBudget>;

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
