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

/** One minute window, the contract's headers and 429 body; each limiter adds its key and rules. */
function minuteLimit(limit: number, rules: Pick<Partial<Options>, 'keyGenerator' | 'skip' | 'skipSuccessfulRequests' | 'requestWasSuccessful'>) {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    validate: { keyGeneratorIpFallback: false },
    handler,
    ...rules,
  });
}

/** Bearer-token calls without a session (session callers are counted per user instead). */
const bearerCall = (req: Parameters<NonNullable<Options['skip']>>[0]) => !req.auth && bearerToken(req) !== null;

export function userRateLimit(limit = config.app.rateLimitPerMinute) {
  return minuteLimit(limit, { keyGenerator: (req) => (req.auth ? `u:${req.auth.user.id}` : `ip:${req.ip}`) });
}

export function tokenRateLimit(limit = config.app.tokenRateLimitPerMinute) {
  return minuteLimit(limit, {
    skip: (req) => !bearerCall(req),
    keyGenerator: (req) => `t:${createHash('sha256').update(bearerToken(req) ?? '').digest('hex').slice(0, 16)}`,
  });
}

/** Wrong bearer tokens (answers 401) per address; correct ones and session callers do not count. */
export function bearerFailureLimit(limit = config.app.bearerFailuresPerMinute) {
  return minuteLimit(limit, {
    skip: (req) => !bearerCall(req),
    keyGenerator: (req) => `bf:${req.ip}`,
    skipSuccessfulRequests: true,
    requestWasSuccessful: (_req, res) => res.statusCode !== 401,
  });
}

/** The limits of every rate-limited mount (/api, the tile-rebuild webhook), sharing their counters. */
export function apiRateLimits() {
  return [userRateLimit(), tokenRateLimit(), bearerFailureLimit()];
}
