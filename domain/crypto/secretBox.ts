/**
 * Secrets at rest: AES-256-GCM with a key derived by PBKDF2-SHA256 from ENCRYPTION_SECRET
 * (spec 5.8, CONTRACT.md section 3 "Vault entry"). One format for everything the service keeps
 * encrypted (vault passwords, the shared portal session's cookies):
 *   v1:<salt>:<iv>:<tag>:<ciphertext>   (each part base64)
 * A fresh salt and IV per value; derived keys are memoised per (secret, salt, iterations), because
 * 210,000 PBKDF2 rounds cost ~100 ms and the portal session is decrypted on every portal call.
 * The derivation runs on libuv's thread pool (async `pbkdf2`), never on the event loop, and at
 * most `config.limits.kdfConcurrency` at once: the pool's other threads stay free for file and DNS
 * work of every other request, and waiting derivations are bounded (past the queue, 429).
 * Callers that store records bind them with associated data (`aad`: the vault binds the record id
 * and company, so a ciphertext copied onto another record fails to decrypt) and may keep the
 * iteration count beside the value so the work factor can be raised later.
 */
import { createCipheriv, createDecipheriv, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { config } from '../config';
import { WorkSlots } from '../concurrency';

const pbkdf2Async = promisify(pbkdf2);

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

export interface SealOptions {
  /** Default: config.encryptionSecret. */
  secret?: string;
  /** Associated data authenticated with the value (not stored): the same must be given to open it. */
  aad?: string;
  /** PBKDF2 iterations; default PBKDF2_ITERATIONS. Store it beside the value when it may change. */
  iterations?: number;
}

function sealOptions(opts: string | SealOptions | undefined): Required<Omit<SealOptions, 'aad'>> & { aad?: string } {
  const o = typeof opts === 'string' ? { secret: opts } : (opts ?? {});
  return { secret: o.secret ?? config.encryptionSecret, iterations: o.iterations ?? PBKDF2_ITERATIONS, aad: o.aad };
}

/** Derivations in flight or done; a second caller of the same key shares the first one's work. */
const keyMemo = new Map<string, Promise<Buffer>>();

const busy = 'Prea multe operații criptografice în acest moment; reîncercați în câteva secunde.';
/** The bounded pool of derivations (one key: callers are capped per user before they get here). */
const kdfSlots = new WorkSlots({
  kind: 'keyDerivation',
  global: () => config.limits.kdfConcurrency,
  perUser: () => Number.POSITIVE_INFINITY,
  retryAfterSeconds: 2,
  messages: { user: busy, global: busy },
  queue: { max: 256, waitMs: 30_000 },
});

function deriveKey(secret: string, salt: Buffer, iterations: number): Promise<Buffer> {
  const memoKey = `${iterations}:${secret.length}:${secret}:${salt.toString('base64')}`;
  let key = keyMemo.get(memoKey);
  if (!key) {
    key = kdfSlots.run('kdf', () => pbkdf2Async(secret, salt, iterations, KEY_BYTES, 'sha256'));
    if (keyMemo.size > 256) keyMemo.clear();
    keyMemo.set(memoKey, key);
    // A refused or failed derivation is not remembered.
    key.catch(() => keyMemo.delete(memoKey));
  }
  return key;
}

/** Encrypts a UTF-8 string into the `v1:` format (a secret string or SealOptions). */
export async function encryptSecret(plain: string, opts?: string | SealOptions): Promise<string> {
  const { secret, iterations, aad } = sealOptions(opts);
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await deriveKey(secret, salt, iterations), iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, salt, iv, tag, ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64'))).join(':');
}

/**
 * Decrypts a `v1:` value; throws DecryptionError on a wrong secret, other associated data or
 * tampered data. The message never carries the value.
 */
export async function decryptSecret(sealed: string, opts?: string | SealOptions): Promise<string> {
  const { secret, iterations, aad } = sealOptions(opts);
  const parts = sealed.split(':');
  if (parts.length !== 5 || parts[0] !== VERSION) throw new DecryptionError('Unknown encrypted value format');
  const [, salt, iv, tag, ciphertext] = parts.map((p) => Buffer.from(p, 'base64'));
  const key = await deriveKey(secret, salt, iterations);
  try {
    // A fixed tag length: GCM would otherwise accept a truncated tag, weakening authentication.
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
    decipher.setAuthTag(tag);
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new DecryptionError('Encrypted value cannot be decrypted (wrong secret or tampered data)');
  }
}

/** True for values already in the `v1:` format (the vault's legacy re-encryption uses it). */
export function isEncryptedSecret(value: string): boolean {
  return /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]*$/.test(value);
}
