/**
 * Personal access tokens as a way in (CONTRACT.md section 6): on GET/HEAD /ogc/* and
 * /tiles/* a request carrying a token (`Authorization: Bearer`, or HTTP Basic with the token as
 * the password or the user name: api/auth/bearer.ts presentedToken) signs in as the token's user
 * and nothing else decides, not even a session cookie beside it. A revoked, expired or unknown token leaves
 * the request without a caller, so the route answers 401 and the bearer-failure limit counts it.
 * So does a token whose identity the provider has not confirmed for TOKEN_IDENTITY_MAX_AGE_DAYS
 * (no sign-in or session refresh of its user), with the reason in the 401.
 * The caller is a session context built from the token's identity with the flags evaluated
 * again against today's lists, so the viewer rule reads it exactly as it reads a session.
 */
import type { RequestHandler } from 'express';
import { config } from '../../domain/config';
import { errors } from '../../domain/errors';
import { countOf } from '../../domain/text/plural';
import { evaluateFlags, type SessionContext } from '../../domain/auth/rules';
import type { AuthService, TokenIdentity } from '../../domain/auth/service';
import { presentedToken } from './bearer';
import type { StoredSession } from './sessionStore';

export const personalTokenAuth = (auth: Pick<AuthService, 'findLiveToken'>): RequestHandler => (req, _res, next) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return next();
  const secret = presentedToken(req);
  if (secret === null) return next();
  req.auth = undefined;
  auth
    .findLiveToken(secret)
    .then((token) => {
      if (token && Date.now() - token.identityAt > config.app.tokenIdentityMaxAgeDays * 86_400_000) {
        // The provider has not confirmed who this is for too long (a scope narrowed meanwhile
        // would not have reached the token): no caller, and the reason in the 401.
        return next(
          errors.unauthorized(
            `Tokenul nu mai poate fi folosit: contul dumneavoastră nu s-a mai conectat în aplicație de peste ${countOf(config.app.tokenIdentityMaxAgeDays, 'zi', 'zile')}. Conectați-vă o dată în aplicație, apoi reîncercați; tokenul rămâne același.`,
          ),
        );
      }
      if (token) {
        const { identity } = token;
        const flags = evaluateFlags(
          { email: identity.user.email, groups: identity.groups, emailVerified: identity.emailVerified },
          config.flags,
        );
        const auth: SessionContext = {
          sessionId: `token:${token.id}`,
          user: identity.user,
          // A token reaches only our own GET routes; no identity-provider token goes with it.
          accessToken: '',
          enrichmentScope: identity.enrichmentScope,
          ...flags,
        };
        req.auth = auth;
      }
      next();
    }, next);
};

/** What a token signs in as, from a stored session (the token's create route and each sign-in). */
export function tokenIdentityOf(data: StoredSession): TokenIdentity {
  return { user: data.user, groups: data.groups, enrichmentScope: data.enrichmentScope, emailVerified: data.emailVerified === true };
}
