/** Bearer-token guard of the cron and address-book routes (CONTRACT.md section 2). */
import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { errors } from '../../domain/errors';

export function bearerToken(req: Request): string | null {
  const h = req.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  return m ? m[1].trim() : null;
}

export function tokensEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

export function requireBearer(req: Request, expected: string): void {
  const token = bearerToken(req);
  if (!token || !tokensEqual(token, expected)) {
    throw errors.unauthorized('Token de acces lipsă sau invalid.');
  }
}
