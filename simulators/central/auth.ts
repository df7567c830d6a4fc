/**
 * Bearer access-token checks of the central API (EXTERNAL-SERVICES.md): signature against the
 * identity provider's JWKS, issuer, audience and expiry with `jose`; an expired or forged token
 * answers 401 `invalid_token`, a token without a usable `enrichment_scope` 403
 * `insufficient_scope` (the error codes of RFC 6750).
 */
import type { NextFunction, Request, Response } from 'express';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

export type Scope = 'full' | 'basic';

export interface Caller {
  sub: string;
  email: string | null;
  /** null: no claim, or `none` (spec 5.5: the central API answers 403 where enrichment is involved). */
  scope: Scope | null;
  claims: JWTPayload;
}

export function bearerVerifier(opts: { issuer: string; audience: string; jwksUrl?: string; rejectNext: (sub: string) => boolean }) {
  const jwks = createRemoteJWKSet(new URL(opts.jwksUrl ?? `${opts.issuer.replace(/\/$/, '')}/jwks`));
  const unauthorized = (res: Response, message: string) =>
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer error="invalid_token"')
      .json({ error: 'invalid_token', message });

  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!token) return void unauthorized(res, 'Lipsește tokenul de acces.');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, { issuer: opts.issuer, audience: opts.audience }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      return void unauthorized(res, code === 'ERR_JWT_EXPIRED' ? 'Tokenul de acces a expirat.' : 'Tokenul de acces nu este valid.');
    }
    // /__sim/reject-tokens: the next calls (of one subject, when named) fail as if the token had
    // been revoked upstream; checked after verification so that a named subject's rejection is
    // not spent on another caller's request.
    if (opts.rejectNext(String(payload.sub ?? ''))) return void unauthorized(res, 'Tokenul de acces a fost revocat.');
    const raw = payload.enrichment_scope;
    const caller: Caller = {
      sub: String(payload.sub ?? ''),
      email: typeof payload.email === 'string' ? payload.email : null,
      scope: raw === 'full' || raw === 'basic' ? raw : null,
      claims: payload,
    };
    res.locals.caller = caller;
    next();
  };
}

export function callerOf(res: Response): Caller {
  return res.locals.caller as Caller;
}

/** Routes that carry enrichment or extracts need a scope (spec 5.5: no claim → 403). */
export function requireScope(_req: Request, res: Response, next: NextFunction) {
  if (!callerOf(res).scope) {
    res.status(403).json({
      error: 'insufficient_scope',
      message: 'Contul nu are dreptul de a vedea datele de îmbogățire (enrichment_scope lipsă).',
    });
    return;
  }
  next();
}
