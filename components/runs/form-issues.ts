/**
 * A zod issue as the sentence an operator reads under a form field ("Must be at least 1"),
 * not zod's own wording ("Too small: expected number to be >=1"). Messages written for a
 * refinement are already sentences and pass through. Pure, so the wording is unit-tested.
 */
export type FormIssue = { code: string; message: string } & Record<string, unknown>;

const num = (v: unknown) => (typeof v === 'bigint' ? v.toString() : String(v));

// zod's own wording ("Too small: expected number to be >=1"): a message a schema wrote itself
// ("LoRA needs at least one target module") is kept as it is
const ZOD_DEFAULT = /^(Too (small|big)|Invalid (input|option|value|format|string|number|element|key|union)|Expected)\b/;

export function readableIssue(issue: FormIssue): string {
  const { code, origin } = issue;
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  if (code === 'too_small') {
    const min = issue.minimum;
    if (origin === 'number' || origin === 'bigint') return issue.inclusive === false ? `Must be more than ${num(min)}` : `Must be at least ${num(min)}`;
    if (origin === 'string') return Number(min) <= 1 ? 'Must not be empty' : `Must have at least ${num(min)} characters`;
    if (origin === 'array' || origin === 'set') return Number(min) <= 1 ? 'Give at least one' : `Give at least ${num(min)} entries`;
  }
  if (code === 'too_big') {
    const max = issue.maximum;
    if (origin === 'number' || origin === 'bigint') return issue.inclusive === false ? `Must be less than ${num(max)}` : `Must be at most ${num(max)}`;
    if (origin === 'string') return `Must have at most ${num(max)} characters`;
    if (origin === 'array' || origin === 'set') return `Give at most ${num(max)} ${Number(max) === 1 ? 'entry' : 'entries'}`;
  }
  if (code === 'invalid_type') {
    if (issue.expected === 'int') return 'Must be a whole number';
    if (issue.expected === 'number') return 'Enter a number';
    if (issue.expected === 'string') return 'Enter text';
  }
  if (code === 'invalid_value' && Array.isArray(issue.values)) return `Choose one of: ${issue.values.map(String).join(', ')}`;
  if (code === 'not_multiple_of') return `Must be a multiple of ${num(issue.divisor)}`;
  if (code === 'invalid_format' && typeof issue.format === 'string') return `Not a valid ${issue.format}`;
  return issue.message;
}
