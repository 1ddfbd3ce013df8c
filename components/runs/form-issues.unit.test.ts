import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readableIssue } from './form-issues';

const issues = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => readableIssue(i as unknown as Parameters<typeof readableIssue>[0]));
};

describe('readableIssue: what a form field says under it', () => {
  it('bounds, whole numbers, choices and lengths as sentences, not zod’s wording', () => {
    expect(issues(z.number().int().min(1), 0)).toEqual(['Must be at least 1']);
    expect(issues(z.number().max(8), 9)).toEqual(['Must be at most 8']);
    expect(issues(z.number().positive(), 0)).toEqual(['Must be more than 0']);
    expect(issues(z.number().lt(1), 1)).toEqual(['Must be less than 1']);
    expect(issues(z.number().int(), 0.5)).toEqual(['Must be a whole number']);
    expect(issues(z.number(), 'x')).toEqual(['Enter a number']);
    expect(issues(z.enum(['bwrap', 'oci']), 'vm')).toEqual(['Choose one of: bwrap, oci']);
    expect(issues(z.string().min(1), '')).toEqual(['Must not be empty']);
    expect(issues(z.string().max(3), 'abcd')).toEqual(['Must have at most 3 characters']);
    expect(issues(z.array(z.string()).max(1), ['a', 'b'])).toEqual(['Give at most 1 entry']);
    expect(issues(z.number().multipleOf(4), 6)).toEqual(['Must be a multiple of 4']);
  });

  it('a message the schema wrote itself is kept (a refinement’s, or a bound’s)', () => {
    expect(
      issues(
        z.number().refine((n) => n % 2 === 0, 'Use an even group size'),
        3,
      ),
    ).toEqual(['Use an even group size']);
    expect(issues(z.array(z.string()).min(1, 'LoRA needs at least one target module'), [])).toEqual(['LoRA needs at least one target module']);
  });
});
