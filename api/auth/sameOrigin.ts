/**
 * Cross-site request forgery guard (issue 25). A request that changes something and is signed in
 * by the session cookie (or the development stub, which is as ambient) must come from one of our
 * own pages: `Origin` equal to our origin, or `Sec-Fetch-Site: same-origin`; otherwise 403
 * `forbidden`. SameSite=Lax alone leaves gaps (a sibling subdomain is same-site; older browsers),
 * and browsers send `Origin` with every POST, PUT, PATCH and DELETE. A request carrying a bearer
 * token is not cookie-authenticated (external tools, cron): a page on another site cannot add an
 * Authorization header without a CORS preflight we never grant, so it passes untouched.
 *
 * "Our origin" is the public URL's, or the one the request itself was addressed to (scheme and
 * Host): a deployment reached under a second name, or a test app on a random port, is still
 * itself, while a forged request carries the attacker's page's origin.
 */
import type { Request, RequestHandler } from 'express';
import { config } from '../../domain/config';
import { errors } from '../../domain/errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export function isSameOriginRequest(req: Request): boolean {
  if (req.get('sec-fetch-site') === 'same-origin') return true;
  const origin = req.get('origin');
  if (!origin || origin === 'null') return false;
  if (origin === originOf(config.app.publicUrl)) return true;
  const host = req.get('host');
  return !!host && origin === originOf(`${req.protocol}://${host}`);
}

export const sameOriginWrites: RequestHandler = (req, _res, next) => {
  if (SAFE_METHODS.has(req.method) || !req.auth || /^bearer\s/i.test(req.get('authorization') ?? '')) return next();
  if (isSameOriginRequest(req)) return next();
  next(errors.forbidden('Cererea a fost refuzată: nu a pornit dintr-o pagină a geoportalului (antetul Origin lipsește sau indică alt site).'));
};
