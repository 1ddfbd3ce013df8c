/**
 * Invariant checks for values the type system cannot prove present — with
 * `noUncheckedIndexedAccess` on, every `xs[i]` and `map[key]` is `T | undefined`.
 * Use these where absence means a bug or corrupt input (not an expected case), so
 * the failure names what was missing instead of surfacing later as
 * "cannot read properties of undefined".
 */

/** Thrown when a value that the code relies on being present is missing. */
export class InvariantError extends Error {
  override name = 'InvariantError';
}

/** Returns `value`, or throws naming `what` was expected when it is `undefined`. */
export function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new InvariantError(`expected ${what}, found nothing (this is a bug)`);
  return value;
}

/** `xs[i]`, or throws when `i` is outside `xs` (names `what` the array holds). */
export function at<T>(xs: ArrayLike<T>, i: number, what: string): T {
  if (!Number.isInteger(i) || i < 0 || i >= xs.length) {
    throw new InvariantError(`expected ${what} at index ${i} of ${xs.length}, found nothing (this is a bug)`);
  }
  return xs[i] as T;
}
