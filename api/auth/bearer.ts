/** Bearer-token guard of the cron, address-book and webhook routes (CONTRACT.md section 2). */
import type { Request } from 'express';
import { errors } from '../../domain/errors';
import { bearerOf, tokensEqual } from '../../domain/crypto/tokens';

export function bearerToken(req: Request): string | null {
  return bearerOf(req.headers.authorization);
}

/**
 * A personal access token as desktop GIS clients send it (CONTRACT.md section 6): `Bearer
 * <token>`, or HTTP Basic for clients without a custom-header method (QGIS 3.22, ArcGIS Pro, FME)
 * with the token as the password (`<any name>:<token>`, the name ignored) or as the user name
 * with an empty password (`<token>:`). Any Basic header is a presented token, well-formed or not,
 * so a wrong one is counted by the wrong-token limit exactly as a wrong bearer token is.
 */
export function presentedToken(req: Request): string | null {
  const bearer = bearerToken(req);
  if (bearer !== null) return bearer;
  const m = /^Basic\s+(\S*)$/i.exec(req.headers.authorization?.trim() ?? '');
  if (!m) return null;
  const pair = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (colon < 0) return pair;
  const password = pair.slice(colon + 1);
  return password !== '' ? password : pair.slice(0, colon);
}

export function requireBearer(req: Request, expected: string): void {
  const token = bearerToken(req);
  // An empty expected token is a misconfiguration: it must never match an empty header.
  if (!token || expected === '' || !tokensEqual(token, expected)) {
    throw errors.unauthorized('Token de acces lipsă sau invalid.');
  }
}
