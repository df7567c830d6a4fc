/** Bearer-token guard of the cron, address-book and webhook routes (CONTRACT.md section 2). */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { errors } from '../../domain/errors';

export function bearerToken(req: Request): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : null;
}

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

export function requireBearer(req: Request, expected: string): void {
  const token = bearerToken(req);
  // An empty expected token is a misconfiguration: it must never match an empty header.
  if (!token || expected === '' || !tokensEqual(token, expected)) {
    throw errors.unauthorized('Token de acces lipsă sau invalid.');
  }
}
