import { z } from 'zod';

/**
 * The one definition of what an environment name and an environment hash look like. Every
 * entry point (API, CLI, task import, job payloads, the env store) validates with these:
 * a name becomes a file name under the store's refs/ and a hash a directory name under
 * the store, so anything looser (a "/", "..", NUL) could point a sandbox's root elsewhere.
 * Imports nothing from the project, so workers and the server can both use it.
 */

export const ENVIRONMENT_NAME_RULE =
  'environment names are 1-63 characters of lowercase letters, digits, ".", "_" and "-", starting with a letter or digit (e.g. "default", "py311")';

export const CONTENT_HASH_RULE = 'environment hashes are "sha256:" followed by 64 lowercase hex digits';

export const environmentName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, ENVIRONMENT_NAME_RULE);

export const contentHash = z.string().regex(/^sha256:[0-9a-f]{64}$/, CONTENT_HASH_RULE);

/** A bad value, quoted with control characters escaped and cut short, for error messages. */
function quote(value: unknown): string {
  const s = JSON.stringify(typeof value === 'string' ? value : String(value));
  return s.length > 80 ? `${s.slice(0, 77)}..."` : s;
}

/** Why `value` is not a valid environment name (what to use instead), or undefined when it is. */
export function environmentNameProblem(value: unknown): string | undefined {
  return environmentName.safeParse(value).success ? undefined : `invalid environment name ${quote(value)}: ${ENVIRONMENT_NAME_RULE}`;
}

/** Why `value` is not a valid environment hash, or undefined when it is. */
export function contentHashProblem(value: unknown): string | undefined {
  return contentHash.safeParse(value).success ? undefined : `invalid environment hash ${quote(value)}: ${CONTENT_HASH_RULE}`;
}
