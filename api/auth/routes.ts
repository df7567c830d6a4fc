/**
 * Sign-in routes (CONTRACT.md section 2): GET /auth/login, GET /auth/callback, POST /auth/logout
 * (GET /auth/logout only shows a confirmation form: a GET that signs out could be triggered by
 * any link or image on another site), and GET /api/auth/session.
 */
import { Router, type Response } from 'express';
import * as oidc from 'openid-client';
import { z } from 'zod';
import { config } from '../../domain/config';
import { AppError } from '../../domain/errors';
import { childLogger } from '../../domain/log';
import { evaluateFlags, type EnrichmentScope } from '../../domain/auth/rules';
import type { Store } from '../../domain/db/store';
import type { NotificationsService } from '../../domain/notifications/service';
import type { AuthService } from '../../domain/auth/service';
import { tokenIdentityOf } from './personalToken';
import { defineRoute } from '../http/route';
import {
  createSession,
  deleteSession,
  isCompany,
  newSessionToken,
  sessionIdFor,
  type StoredSession,
} from './sessionStore';
import {
  FLOW_TTL_MS,
  SESSION_COOKIE,
  clearFlowCookie,
  clearSessionCookie,
  readFlowCookie,
  safeCallbackUrl,
  setFlowCookie,
  setSessionCookie,
} from './cookies';
import { describe, getOidcConfig, redirectUri, tokenState } from './oidcClient';

const log = childLogger('auth');

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Sign-in happens in a browser: its failures are pages, not JSON. */
function authPage(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .type('html')
    .send(
      `<!DOCTYPE html><html lang="ro"><head><meta charset="utf-8"><title>${esc(title)}</title></head>` +
        `<body style="font-family:system-ui,sans-serif;max-width:40em;margin:10vh auto"><h1>${esc(title)}</h1>${body}</body></html>`,
    );
}

const retryLink = '<p><a href="/auth/login">Autentificați-vă din nou</a></p>';

function scopeOf(v: unknown): EnrichmentScope | null {
  return v === 'full' || v === 'basic' || v === 'none' ? v : null;
}

/**
 * What the session keeps of the ID token's claims, and the flags derived from them. Used at
 * sign-in and again at each refresh (session.ts), so a changed group, scope or list takes effect
 * without a new sign-in.
 */
export function identityFromClaims(claims: oidc.IDToken): Omit<StoredSession, 'v' | 'tokens' | 'error'> {
  const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : '';
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string') : [];
  const emailVerified = claims.email_verified === true;
  return {
    user: {
      id: claims.sub,
      email,
      name: typeof claims.name === 'string' ? claims.name : email,
      company: isCompany(claims.company) ? claims.company : null,
    },
    groups,
    enrichmentScope: scopeOf(claims.enrichment_scope),
    emailVerified,
    flags: evaluateFlags({ email, groups, emailVerified }, config.flags),
  };
}

export function sessionFromTokens(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): StoredSession {
  const claims = tokens.claims();
  if (!claims) throw new Error('the identity provider answered no ID token');
  return { v: 1, ...identityFromClaims(claims), tokens: tokenState(tokens) };
}

/** Sign-in's routes on the process's store; `auth` keeps the user's tokens and the session table current, `notifications` learns the user's address. */
export function authRouter(
  store: Store,
  auth: Pick<AuthService, 'refreshTokenIdentities' | 'deleteExpiredSessions'>,
  notifications: Pick<NotificationsService, 'recordSignIn'>,
): Router {
  const router = Router();

  router.get('/login', async (req, res, next) => {
    try {
      const callbackUrl = safeCallbackUrl(req.query.callbackUrl);
      const cfg = await getOidcConfig();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      setFlowCookie(res, { state, nonce, codeVerifier, callbackUrl, exp: Date.now() + FLOW_TTL_MS });
      const url = oidc.buildAuthorizationUrl(cfg, {
        redirect_uri: redirectUri(),
        scope: config.oidc.scopes,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      res.set('Cache-Control', 'no-store').redirect(302, url.href);
    } catch (err) {
      if (err instanceof AppError) return authPage(res, err.status, 'Autentificare indisponibilă', `<p>${esc(err.message)}</p>${retryLink}`);
      next(err);
    }
  });

  router.get('/callback', async (req, res, next) => {
    const flow = readFlowCookie(req);
    clearFlowCookie(res);
    if (!flow) {
      return authPage(res, 400, 'Autentificarea a expirat', '<p>Cererea de autentificare a expirat sau nu a pornit din acest browser.</p>' + retryLink);
    }
    const retry = `<p><a href="/auth/login?callbackUrl=${esc(encodeURIComponent(flow.callbackUrl))}">Încercați din nou</a></p>`;
    if (typeof req.query.error === 'string') {
      log.warn({ error: req.query.error }, 'identity provider refused the sign-in');
      return authPage(res, 400, 'Autentificare refuzată', '<p>Furnizorul de identitate a refuzat autentificarea.</p>' + retry);
    }
    try {
      const cfg = await getOidcConfig();
      const current = new URL(redirectUri());
      current.search = new URL(req.originalUrl, 'http://x.invalid').search;
      let data: StoredSession;
      try {
        const tokens = await oidc.authorizationCodeGrant(cfg, current, {
          pkceCodeVerifier: flow.codeVerifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        data = sessionFromTokens(tokens);
      } catch (err) {
        log.warn({ reason: describe(err) }, 'authorization code exchange failed');
        return authPage(res, 502, 'Autentificarea a eșuat', '<p>Nu am putut finaliza autentificarea cu furnizorul de identitate.</p>' + retry);
      }
      // A new sign-in replaces the session this browser had (e.g. after RefreshAccessTokenError).
      const old = req.cookies?.[SESSION_COOKIE];
      if (typeof old === 'string' && old !== '') await deleteSession(store.pool, sessionIdFor(old));
      const token = newSessionToken();
      await createSession(store.pool, sessionIdFor(token), data);
      // The notifications module mails users it knows from their sign-ins (docs/notifications.md).
      await notifications.recordSignIn({ ...data.user, isAdmin: data.flags.isAdmin });
      // The user's access tokens sign in as the user is known now (a narrowed scope reaches them).
      await auth.refreshTokenIdentities(tokenIdentityOf(data));
      auth.deleteExpiredSessions().catch((err) => log.warn({ reason: describe(err) }, 'purging expired sessions failed'));
      log.info({ userId: data.user.id }, 'signed in');
      setSessionCookie(res, token);
      res.set('Cache-Control', 'no-store').redirect(302, flow.callbackUrl);
    } catch (err) {
      next(err);
    }
  });

  router.get('/logout', (_req, res) => {
    authPage(
      res,
      200,
      'Deconectare',
      '<form method="post" action="/auth/logout"><p>Doriți să vă deconectați din geoportal?</p><button type="submit">Deconectare</button></form>',
    );
  });

  router.post('/logout', async (req, res, next) => {
    try {
      const token = req.cookies?.[SESSION_COOKIE];
      const ended = typeof token === 'string' && token !== '' ? await deleteSession(store.pool, sessionIdFor(token)) : null;
      clearSessionCookie(res);
      let location = '/';
      if (ended) {
        log.info({ userId: ended.user.id }, 'signed out');
        const cfg = await getOidcConfig().catch(() => undefined);
        if (cfg) {
          // The refresh token would otherwise stay valid at the IdP for 30 days; best effort.
          if (ended.tokens.refreshToken) {
            oidc.tokenRevocation(cfg, ended.tokens.refreshToken, { token_type_hint: 'refresh_token' }).catch(() => undefined);
          }
          if (cfg.serverMetadata().end_session_endpoint) {
            // The client's id (openid-client adds it), not the ID token as the hint: this address
            // is the browser's, its history's and the provider's access log's, and the ID token
            // (the user's e-mail and groups, signed) stays on the server.
            location = oidc.buildEndSessionUrl(cfg, { post_logout_redirect_uri: `${config.app.publicUrl.replace(/\/$/, '')}/` }).href;
          }
        }
      }
      res.set('Cache-Control', 'no-store').redirect(303, location);
    } catch (err) {
      next(err);
    }
  });

  return router;
}

const SessionAnswer = z.object({
  user: z.object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    company: z.enum(['B', 'U', 'S', 'G']).nullable(),
  }),
  useCentralApi: z.boolean(),
  basicPanel: z.boolean(),
  isAdmin: z.boolean(),
  enrichmentScope: z.enum(['full', 'basic', 'none']).nullable(),
  error: z.literal('RefreshAccessTokenError').optional(),
});

export function registerAuthApiRoutes(router: Router): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/auth/session',
      summary: 'The signed-in user, the feature flags of the session and a refresh error, if any',
      tags: ['auth'],
      auth: 'session',
      response: { description: 'The current session', schema: SessionAnswer },
    },
    ({ auth, res }): z.infer<typeof SessionAnswer> => {
      res.set('Cache-Control', 'no-store');
      const a = auth!;
      return {
        user: { id: a.user.id, email: a.user.email, name: a.user.name, company: a.user.company },
        useCentralApi: a.useCentralApi,
        basicPanel: a.basicPanel,
        isAdmin: a.isAdmin,
        enrichmentScope: a.enrichmentScope,
        ...(a.error ? { error: a.error } : {}),
      };
    },
  );
}
