/**
 * The service's side of OpenID Connect (openid-client 6). Discovery is done once and cached; when
 * the identity provider is not up yet (the stack starts it in parallel) it is retried with backoff,
 * and a failure is not cached, so the next sign-in tries again.
 */
import * as oidc from 'openid-client';
import { config } from '../../domain/config';
import { errors } from '../../domain/errors';
import { childLogger } from '../../domain/log';
import type { TokenState } from './sessionStore';

const log = childLogger('auth');

const DISCOVERY_RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000];
/** Refresh a little before expiry (at most 30 s, at most a fifth of the token's lifetime). */
const MAX_REFRESH_MARGIN_MS = 30_000;

let cached: Promise<oidc.Configuration> | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function discoverWithRetry(): Promise<oidc.Configuration> {
  const issuer = new URL(config.oidc.issuer);
  const insecure = issuer.protocol === 'http:';
  for (let attempt = 0; ; attempt++) {
    try {
      const cfg = await oidc.discovery(issuer, config.oidc.clientId, config.oidc.clientSecret, undefined, {
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        timeout: Math.ceil(config.oidc.refreshTimeoutMs / 1000),
      });
      // Every call of this client (code exchange, refresh) gets the spec 5.4 timeout of 8 s.
      cfg.timeout = Math.ceil(config.oidc.refreshTimeoutMs / 1000);
      return cfg;
    } catch (err) {
      if (attempt >= DISCOVERY_RETRY_DELAYS_MS.length) {
        log.warn({ issuer: issuer.href, reason: describe(err) }, 'identity provider discovery failed');
        throw errors.upstream('Furnizorul de identitate nu răspunde. Încercați din nou peste câteva momente.');
      }
      await sleep(DISCOVERY_RETRY_DELAYS_MS[attempt]);
    }
  }
}

export function getOidcConfig(): Promise<oidc.Configuration> {
  cached ??= discoverWithRetry().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/** An error's shape for a log line: never the error object itself (it may carry a response). */
export function describe(err: unknown): Record<string, unknown> {
  const e = err as { name?: string; code?: string; error?: string; status?: number; message?: string };
  return { name: e?.name, code: e?.code, error: e?.error, status: e?.status, message: e?.message?.slice(0, 200) };
}

export function redirectUri(): string {
  return `${config.app.publicUrl.replace(/\/$/, '')}/auth/callback`;
}

export function tokenState(
  tokens: oidc.TokenEndpointResponse,
  previous?: TokenState,
  now = Date.now(),
): TokenState {
  const lifetimeMs = (tokens.expires_in ?? 300) * 1000;
  const margin = Math.min(MAX_REFRESH_MARGIN_MS, lifetimeMs / 5);
  return {
    accessToken: tokens.access_token,
    accessTokenExpiresAt: now + lifetimeMs,
    refreshAt: now + lifetimeMs - margin,
    // An IdP that does not rotate answers no new refresh token: keep the old one.
    refreshToken: tokens.refresh_token ?? previous?.refreshToken,
  };
}

export class RefreshTimeoutError extends Error {
  constructor() {
    super('token refresh timed out');
    this.name = 'RefreshTimeoutError';
  }
}

/** One refresh-token grant, bounded by the spec 5.4 timeout of 8 s. */
export async function refreshTokens(refreshToken: string): Promise<oidc.TokenEndpointResponse> {
  const cfg = await getOidcConfig();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      oidc.refreshTokenGrant(cfg, refreshToken),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new RefreshTimeoutError()), config.oidc.refreshTimeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
