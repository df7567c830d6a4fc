/** Bearer-token guard of the cron, address-book and webhook routes (CONTRACT.md section 2). */
import type { Request } from 'express';
import { errors } from '../../domain/errors';
import { bearerOf, tokensEqual } from '../../domain/crypto/tokens';

export function bearerToken(req: Request): string | null {
  return bearerOf(req.headers.authorization);
}

export function requireBearer(req: Request, expected: string): void {
  const token = bearerToken(req);
  // An empty expected token is a misconfiguration: it must never match an empty header.
  if (!token || expected === '' || !tokensEqual(token, expected)) {
    throw errors.unauthorized('Token de acces lipsă sau invalid.');
  }
}
