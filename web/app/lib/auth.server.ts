/**
 * The session every page needs. The Express page guard runs before Remix, so a missing session is
 * unusual; a failed token refresh (spec 5.4) is not: both force a new sign-in that returns to the
 * page the user was on. `redirectDocument` makes the browser leave the Remix router, because
 * /auth/* is served by Express, not by a route module.
 */
import { data, redirectDocument } from '@remix-run/node';
import type { AppLoadContext } from '@remix-run/node';
import type { SessionContext } from '../context';
import { DEV_BYPASS_SESSION_ID } from '../../../domain/auth/rules';
import { errors } from '../../../domain/errors';
import type { PageRefusal } from '../../../domain/limits/pageRefusal';
import { countOf } from './words';

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

/**
 * Every loader and action starts here, so this is also where a page request past the caller's
 * per-user limit (`context.refused`, the page door in api/http/rateLimit.ts) stops: a 429 with
 * the API's error body before the page's work, shown by the root error page.
 */
export function requireSession(request: Request, context: AppLoadContext): SessionContext {
  const auth = context.auth;
  if (!auth || auth.error === 'RefreshAccessTokenError') throw redirectDocument(signInUrl(request));
  if (context.refused) throw tooManyRequests(context.refused);
  return auth;
}

/** Its Retry-After and no-store the page door has set on the answer already (Remix drops a thrown answer's headers). */
function tooManyRequests({ retryAfterSeconds }: PageRefusal) {
  const err = errors.rateLimited(
    retryAfterSeconds,
    `Ați trimis prea multe cereri în ultimul minut. Reîncercați peste ${countOf(retryAfterSeconds, 'secundă', 'secunde')}.`,
  );
  return data(err.toBody(), { status: 429 });
}
