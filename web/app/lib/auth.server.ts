/**
 * The session every page needs. The Express page guard runs before Remix, so a missing session is
 * unusual; a failed token refresh (spec 5.4) is not: both force a new sign-in that returns to the
 * page the user was on. `redirectDocument` makes the browser leave the Remix router, because
 * /auth/* is served by Express, not by a route module.
 */
import { redirectDocument } from '@remix-run/node';
import type { AppLoadContext } from '@remix-run/node';
import type { SessionContext } from '../context';
import { DEV_BYPASS_SESSION_ID } from '../../../domain/auth/rules';

export function signInUrl(request: Request): string {
  const url = new URL(request.url);
  return `/auth/login?callbackUrl=${encodeURIComponent(url.pathname + url.search)}`;
}

/**
 * Whether "Deconectare" means anything to this user: the development bypass's stub user has no
 * session to end (signing out would show the same user again), so the top bar offers no button.
 */
export function maySignOut(auth: Pick<SessionContext, 'sessionId'>): boolean {
  return auth.sessionId !== DEV_BYPASS_SESSION_ID;
}

export function requireSession(request: Request, context: AppLoadContext): SessionContext {
  const auth = context.auth;
  if (!auth || auth.error === 'RefreshAccessTokenError') throw redirectDocument(signInUrl(request));
  return auth;
}
