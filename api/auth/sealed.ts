/**
 * What sign-in keeps and nobody may read or forge: the in-flight login cookie and the identity
 * provider's refresh and ID tokens in app_sessions (issue 25). AES-256-GCM under a key derived
 * from SESSION_SECRET (SHA-256 of a purpose label and the secret, so each use has its own key);
 * optional associated data binds a value to its place (a session's tokens to its row id, so a
 * sealed value copied onto another row does not open). A cheap hash derivation fits here, unlike
 * the vault's PBKDF2: SESSION_SECRET is a long random key (production requires 32 characters),
 * not a password, and sessions are read on every request.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { config } from '../../domain/config';

const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyFor = (purpose: string) => createHash('sha256').update(`${purpose}:${config.app.sessionSecret}`).digest();

export function sealWith(purpose: string, value: unknown, aad?: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(purpose), iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url');
}

/** The sealed value, or null when it is not ours, was changed, or belongs elsewhere (aad). */
export function unsealWith<T>(purpose: string, sealed: string, aad?: string): T | null {
  try {
    const buf = Buffer.from(sealed, 'base64url');
    if (buf.length < IV_BYTES + TAG_BYTES + 1) return null;
    const decipher = createDecipheriv('aes-256-gcm', keyFor(purpose), buf.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(buf.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
    const pt = Buffer.concat([decipher.update(buf.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(pt.toString('utf8')) as T;
  } catch {
    return null;
  }
}

/** A keyed digest to find a row by a secret without storing the secret (the refresh lease's match). */
export function digestWith(purpose: string, value: string): string {
  return createHmac('sha256', keyFor(purpose)).update(value).digest('base64url');
}
