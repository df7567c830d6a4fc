/**
 * Rate limits of CONTRACT.md section 5: 600 requests a minute per user on /api/*, 60 a minute per
 * bearer token on token routes. Answers 429 with Retry-After and the contract's error body.
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
    skip: (req) => !req.auth && bearerToken(req) !== null,
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
