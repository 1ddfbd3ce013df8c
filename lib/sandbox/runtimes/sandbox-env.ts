import { SandboxError } from '../types';

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The environment every sandboxed command starts with (plus ExecOptions.env). */
export function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  for (const k of Object.keys(extra)) if (!ENV_KEY.test(k)) throw new SandboxError(`invalid environment variable name ${k}`, 'config');
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/work', TMPDIR: '/tmp', LANG: 'C.UTF-8', USER: 'sandbox', ...extra };
}
