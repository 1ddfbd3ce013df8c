import { createHash, randomBytes } from 'node:crypto';

/** Only digests of session cookies and API tokens are stored. */
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export const newSessionToken = () => randomBytes(32).toString('base64url');

/** API tokens are recognisable (`crc_` prefix) so secret scanners can find leaked ones. */
export const newApiToken = () => `crc_${randomBytes(24).toString('base64url')}`;
