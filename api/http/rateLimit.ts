/**
 * Rate limits of CONTRACT.md section 5: 600 requests a minute per user on /api/*, 60 a minute per
 * bearer token on token routes. Answers 429 with Retry-After and the contract's error body.
 * Without a session the caller's address is the key whatever headers it sends (a made-up bearer
 * token buys no fresh bucket), and wrong bearer tokens are counted per address, so a token cannot
 * be guessed at request speed. `apiRateLimits()` is the one set, shared by every mount point.
 */
import { createHash } from 'node:crypto';
import { rateLimit, type Options } from 'express-rate-limit';
import { errors } from '../../domain/errors';
import { bearerToken } from '../auth/bearer';
import { config } from '../../domain/config';

const WINDOW_MS = 60_000;

const handler: Options['handler'] = (req, res, _next, options) => {
  const resetTime = (req as any).rateLimit?.resetTime as Date | undefined;
  const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + options.windowMs) - Date.now()) / 1000));
  const err = errors.rateLimited(retryAfter);
  res.status(429).set(err.headers ?? {}).json(err.toBody());
};

export function userRateLimit(limit = config.app.rateLimitPerMinute) {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    keyGenerator: (req) => (req.auth ? `u:${req.auth.user.id}` : `ip:${req.ip}`),
    validate: { keyGeneratorIpFallback: false },
    handler,
  });
}

export function tokenRateLimit(limit = config.app.tokenRateLimitPerMinute) {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skip: (req) => !!req.auth || bearerToken(req) === null,
    keyGenerator: (req) => `t:${createHash('sha256').update(bearerToken(req) ?? '').digest('hex').slice(0, 16)}`,
    validate: { keyGeneratorIpFallback: false },
    handler,
  });
}

/** Wrong bearer tokens (answers 401) per address; correct ones and session callers do not count. */
export function bearerFailureLimit(limit = config.app.bearerFailuresPerMinute) {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skip: (req) => !!req.auth || bearerToken(req) === null,
    keyGenerator: (req) => `bf:${req.ip}`,
    skipSuccessfulRequests: true,
    requestWasSuccessful: (_req, res) => res.statusCode !== 401,
    validate: { keyGeneratorIpFallback: false },
    handler,
  });
}

/** The limits of every rate-limited mount (/api, the tile-rebuild webhook), sharing their counters. */
export function apiRateLimits() {
  return [userRateLimit(), tokenRateLimit(), bearerFailureLimit()];
}
