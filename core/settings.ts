import { z } from 'zod';

/**
 * Process settings, read from the environment once and validated here (create-t3-app `env`
 * style). Everything new reads its setting from this module; older `process.env` reads are
 * being moved here (issue 14). A bad value fails at start with the variable's name.
 */
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const bytes = z.coerce.number().int().positive();

export const settingsSchema = z.object({
  /** JSON request bodies over this many bytes are refused before they are buffered (413). */
  CRUCIBLE_MAX_BODY_BYTES: bytes.default(1024 * 1024),
  /** Task import uploads (streamed) over this many bytes are refused (413). */
  CRUCIBLE_MAX_IMPORT_BYTES: bytes.default(64 * 1024 * 1024),
  /**
   * Trust `X-Forwarded-Proto` / `X-Forwarded-For` from a reverse proxy in front of the web
   * server (TLS detection for Secure cookies, client address for login throttling). Leave off
   * unless such a proxy strips those headers from clients.
   */
  CRUCIBLE_TRUST_PROXY: flag.default(false),
  /** Allow the app to connect to an external DATABASE_URL as a superuser (refused by default). */
  CRUCIBLE_ALLOW_SUPERUSER: flag.default(false),
});

export type Settings = z.infer<typeof settingsSchema>;

/** Parse settings from an environment object; throws an error naming each bad variable. */
export function parseSettings(env: Record<string, string | undefined>): Settings {
  const result = settingsSchema.safeParse(env);
  if (!result.success) {
    const what = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid setting: ${what} (see the README's configuration table)`);
  }
  return result.data;
}

let cached: Settings | undefined;
/** This process's settings, parsed on first use. */
export function settings(): Settings {
  cached ??= parseSettings(process.env);
  return cached;
}
