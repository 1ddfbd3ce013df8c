import { validationIssues } from '../api-error';

/** Server validation issues keyed by top-level field name. */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of validationIssues(error)) out[String(i.path[0] ?? '')] ??= i.message;
  return out;
}
