/**
 * Secrets at rest: AES-256-GCM with a key derived by PBKDF2-SHA256 from ENCRYPTION_SECRET
 * (spec 5.8, CONTRACT.md section 3 "Vault entry"). One format for everything the service keeps
 * encrypted (vault passwords, the shared portal session's cookies):
 *   v1:<salt>:<iv>:<tag>:<ciphertext>   (each part base64)
 * A fresh salt and IV per value; derived keys are memoised per (secret, salt), because 210,000
 * PBKDF2 rounds cost ~100 ms and the portal session is decrypted on every portal call.
 */
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { config } from '../config';

/** CONTRACT.md section 3: PBKDF2-SHA256, 210,000 iterations. */
export const PBKDF2_ITERATIONS = 210_000;
const VERSION = 'v1';
const SALT_BYTES = 16;
const IV_BYTES = 12; // the GCM standard nonce length
const KEY_BYTES = 32;

export class DecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecryptionError';
  }
}

const keyMemo = new Map<string, Buffer>();

function deriveKey(secret: string, salt: Buffer): Buffer {
  const memoKey = `${secret.length}:${secret}:${salt.toString('base64')}`;
  let key = keyMemo.get(memoKey);
  if (!key) {
    key = pbkdf2Sync(secret, salt, PBKDF2_ITERATIONS, KEY_BYTES, 'sha256');
    if (keyMemo.size > 256) keyMemo.clear();
    keyMemo.set(memoKey, key);
  }
  return key;
}

/** Encrypts a UTF-8 string into the `v1:` format. */
export function encryptSecret(plain: string, secret: string = config.encryptionSecret): string {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secret, salt), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, salt, iv, tag, ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64'))).join(':');
}

/** Decrypts a `v1:` value; throws DecryptionError on a wrong secret or tampered data. */
export function decryptSecret(sealed: string, secret: string = config.encryptionSecret): string {
  const parts = sealed.split(':');
  if (parts.length !== 5 || parts[0] !== VERSION) throw new DecryptionError('Unknown encrypted value format');
  const [, salt, iv, tag, ciphertext] = parts.map((p) => Buffer.from(p, 'base64'));
  try {
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(secret, salt), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptionError('Encrypted value cannot be decrypted (wrong secret or tampered data)');
  }
}

/** True for values already in the `v1:` format (the vault's legacy re-encryption uses it). */
export function isEncryptedSecret(value: string): boolean {
  return /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]*$/.test(value);
}
