/**
 * Loads `req.auth` from the session cookie, touching last_seen_at at most once a minute, and
 * refreshes the access token when it is (nearly) expired. Spec 5.4: the identity provider rotates
 * refresh tokens (single use), so concurrent requests holding one refresh token must share ONE
 * exchange; a second exchange with the consumed token would fail (and may revoke the grant).
 */
import type { Request, RequestHandler, Response } from 'express';
import type pg from 'pg';
import { config } from '../../domain/config';
import { childLogger } from '../../domain/log';
import { devBypassEnabled, evaluateFlags, DEV_BYPASS_SESSION_ID, type SessionContext } from '../../domain/auth/rules';
import {
  SESSION_TOUCH_INTERVAL_MS,
  loadSessionCached,
  isSessionToken,
  sessionIdFor,
  touchSession,
  refreshSessionLeased,
  type StoredSession,
} from './sessionStore';
import { SESSION_COOKIE, clearSessionCookie } from './cookies';
import { describe, refreshTokens, tokenState } from './oidcClient';
import { identityFromClaims } from './routes';
import { tokenIdentityOf } from './personalToken';
import { refreshTokenIdentities } from '../../domain/auth/service';
import type * as oidc from 'openid-client';

const log = childLogger('auth');

/**
 * In-flight refreshes by refresh token. An entry stays a while after it settles: a request that
 * read the session row just before the refresh was stored still holds the old token and must get
 * the same result instead of a second exchange.
 */
const inflight = new Map<string, Promise<StoredSession | null>>();
const SETTLED_GRACE_MS = 30_000;

/** Paths that never need a session (static files): no database round trip for them. */
const STATIC_PREFIXES = ['/assets/', '/build/', '/favicon.ico', '/robots.txt', '/@', '/node_modules/'];
const isStatic = (path: string) => STATIC_PREFIXES.some((p) => path.startsWith(p));

export function refreshShared(db: pg.Pool, sessionId: string, refreshToken: string): Promise<StoredSession | null> {
  let p = inflight.get(refreshToken);
  if (!p) {
    p = exchange(db, sessionId, refreshToken);
    inflight.set(refreshToken, p);
    const forget = () => setTimeout(() => inflight.delete(refreshToken), SETTLED_GRACE_MS).unref();
    p.then(forget, forget);
  }
  return p;
}

async function exchange(db: pg.Pool, sessionId: string, refreshToken: string): Promise<StoredSession | null> {
  let renewed: StoredSession | undefined;
  const session = await refreshSessionLeased(db, sessionId, refreshToken, async (current) => {
    try {
      const tokens = await refreshTokens(refreshToken);
      const { error: _e, ...rest } = current;
      // Claims and flags are read again: a new ID token's claims when the provider sends one,
      // otherwise the stored identity against today's lists (ADMIN_EMAILS, pilots, basic panel).
      const claims = (tokens as Partial<oidc.TokenEndpointResponseHelpers>).claims?.();
      const identity = claims
        ? identityFromClaims(claims)
        : { flags: evaluateFlags({ email: current.user.email, groups: current.groups, emailVerified: current.emailVerified === true }, config.flags) };
      const next = { ...rest, ...identity, tokens: tokenState(tokens, current.tokens) };
      if (claims) renewed = next;
      return next;
    } catch (err) {
      log.warn({ userId: current.user.id, reason: describe(err) }, 'access token refresh failed');
      return { ...current, error: 'RefreshAccessTokenError' as const };
    }
  });
  // The provider's claims as of now reach the user's access tokens too, as at a sign-in: a scope
  // narrowed at the provider stops a QGIS token reading owners within an access token's lifetime
  // of the user's next page, not at their next sign-in.
  if (session && renewed) {
    // The session is renewed already: a failure here leaves the tokens as the last sign-in made
    // them (the next refresh tries again), never fails the request that refreshed.
    await refreshTokenIdentities(db, tokenIdentityOf(renewed)).catch((err: unknown) =>
      log.warn({ userId: renewed?.user.id, reason: describe(err) }, "updating the user's access tokens after a refresh failed"),
    );
  }
  return session;
}

export function toContext(sessionId: string, data: StoredSession): SessionContext {
  return {
    sessionId,
    user: data.user,
    accessToken: data.tokens.accessToken,
    enrichmentScope: data.enrichmentScope,
    useCentralApi: data.flags.useCentralApi,
    basicPanel: data.flags.basicPanel,
    isAdmin: data.flags.isAdmin,
    ...(data.error ? { error: data.error } : {}),
  };
}

/** The stub user of the development bypass (spec 5.1): an admin, so every screen is reachable. */
export function devStubContext(): SessionContext {
  const email = 'dev@birou.ro';
  const flags = evaluateFlags({ email, groups: ['admin'], emailVerified: true }, config.flags);
  return {
    sessionId: DEV_BYPASS_SESSION_ID,
    user: { id: 'dev-bypass', email, name: 'Utilizator de dezvoltare', company: 'B' },
    accessToken: '',
    enrichmentScope: 'full',
    ...flags,
  };
}

async function loadAuth(db: pg.Pool, req: Request, res: Response): Promise<void> {
  if (isStatic(req.path)) return;
  const token = req.cookies?.[SESSION_COOKIE];
  if (typeof token === 'string' && token !== '') {
    const auth = await sessionOfCookie(db, token);
    if (auth) {
      req.auth = auth;
      return;
    }
    // Expired or unknown: drop the dead cookie so the browser stops sending it.
    clearSessionCookie(res);
  }
  if (devBypassEnabled(config.nodeEnv, config.oidc.devBypassRequested)) req.auth = devStubContext();
}

/**
 * The session a cookie's token names, its last use touched and its access token refreshed when
 * due; null when it expired or is unknown. Every request's (sessionMiddleware) and the tile front
 * door's (api/routes/tiles.ts), so both read a session alike.
 */
export async function sessionOfCookie(db: pg.Pool, token: string): Promise<SessionContext | null> {
  // No session was ever issued under another shape: not looked up, not remembered.
  if (!isSessionToken(token)) return null;
  const id = sessionIdFor(token);
  // From memory for a few seconds (sessionStore.ts): a map view sends dozens of tile requests.
  const row = await loadSessionCached(db, id);
  if (!row) return null;
  let data = row.data;
  if (Date.now() - row.lastSeenAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) await touchSession(db, id);
  if (!data.error && Date.now() >= data.tokens.refreshAt) {
    data = data.tokens.refreshToken
      ? ((await refreshShared(db, id, data.tokens.refreshToken)) ?? data)
      : { ...data, error: 'RefreshAccessTokenError' };
  }
  return toContext(id, data);
}

/** `db`: the pool of the store the app was built on (app_sessions). */
export const sessionMiddleware =
  (db: pg.Pool): RequestHandler =>
  (req, res, next) => {
    loadAuth(db, req, res).then(() => next(), next);
  };
