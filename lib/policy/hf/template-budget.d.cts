import type * as jinja from '@huggingface/jinja';

export type TemplateLimits = {
  /** interpreter steps (expressions evaluated + statements rendered) */
  steps: number;
  /** characters of text plus list items produced over the whole render */
  chars: number;
  /** a wall-clock ceiling in milliseconds (a safety net: the step budget decides first on an idle host) */
  ms: number;
};

export declare function installTemplateBudget(
  lib: Pick<typeof jinja, 'Interpreter' | 'Environment'>,
): (template: Pick<jinja.Template, 'render'>, items: Record<string, unknown>, limits: TemplateLimits) => string;
