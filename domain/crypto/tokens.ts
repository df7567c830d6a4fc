/** The one comparison of a presented bearer token with the expected one (web routes and worker metrics). */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A per-process key: the digests compared below mean nothing outside this process. */
const COMPARE_KEY = randomBytes(32);
const digest = (s: string) => createHmac('sha256', COMPARE_KEY).update(s, 'utf8').digest();

/**
 * Constant time whatever the inputs: both sides are reduced to fixed-length HMACs first, so
 * neither the content nor the LENGTH of the expected token shows in the timing.
 */
export function tokensEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerOf(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return m ? m[1].trim() : null;
}
