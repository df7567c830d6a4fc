/**
 * Rate limits of CONTRACT.md section 5: 600 requests a minute per user on /api/*, 60 a minute per
 * bearer token on token routes. Answers 429 with Retry-After and the contract's error body.
 * Without a session the caller's address is the key whatever headers it sends (a made-up bearer
 * token buys no fresh bucket), and wrong bearer tokens are counted per address, so a token cannot
 * be guessed at request speed. `apiRateLimits()` is the one set, shared by every mount point.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import { WorkSlots, type Release } from '../../domain/concurrency';
import { errors } from '../../domain/errors';
import { bearerToken } from '../auth/bearer';
import { config } from '../../domain/config';
import { rateLimited } from '../../domain/metrics';

const WINDOW_MS = 60_000;

/** Which limit refused, in the metrics (geoportal_rate_limited_total's `cap`). */
type Cap = 'user' | 'token' | 'bearer_failures';

const handlerFor = (cap: Cap): Options['handler'] => (req, res, _next, options) => {
  rateLimited.inc({ cap });
  const resetTime = (req as any).rateLimit?.resetTime as Date | undefined;
  const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + options.windowMs) - Date.now()) / 1000));
  const err = errors.rateLimited(retryAfter);
  res.status(429).set(err.headers ?? {}).json(err.toBody());
};

/** One minute window, the contract's headers and 429 body; each limiter adds its key and rules. */
function minuteLimit(cap: Cap, limit: number, rules: Pick<Partial<Options>, 'keyGenerator' | 'skip' | 'skipSuccessfulRequests' | 'requestWasSuccessful'>) {
  return rateLimit({
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    validate: { keyGeneratorIpFallback: false },
    handler: handlerFor(cap),
    ...rules,
  });
}

/** Bearer-token calls without a session (session callers are counted per user instead). */
const bearerCall = (req: Parameters<NonNullable<Options['skip']>>[0]) => !req.auth && bearerToken(req) !== null;

/** Who a limit counts: the signed-in user, else the address (whatever headers it sends). */
export function callerKey(req: Request): string {
  return req.auth ? `u:${req.auth.user.id}` : `ip:${req.ip}`;
}

export function userRateLimit(limit = config.app.rateLimitPerMinute) {
  return minuteLimit('user', limit, { keyGenerator: callerKey });
}

export function tokenRateLimit(limit = config.app.tokenRateLimitPerMinute) {
  return minuteLimit('token', limit, {
    skip: (req) => !bearerCall(req),
    keyGenerator: (req) => `t:${createHash('sha256').update(bearerToken(req) ?? '').digest('hex').slice(0, 16)}`,
  });
}

/** Wrong bearer tokens (answers 401) per address; correct ones and session callers do not count. */
export function bearerFailureLimit(limit = config.app.bearerFailuresPerMinute) {
  return minuteLimit('bearer_failures', limit, {
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

const busyMessage = (what: string) => `Se procesează deja prea multe ${what} în acest moment; reîncercați în câteva secunde.`;
const ownMessage = (what: string) => `Aveți deja ${what} în lucru; așteptați să se termine, apoi reîncercați.`;

/**
 * Heavy work (CONTRACT.md section 6 "heavy routes"): one WorkSlots each, a global and a per-user
 * cap from config.limits; past them 429 `rate_limited` with Retry-After.
 */
export const heavyWork = {
  pdf: new WorkSlots({
    kind: 'pdf',
    global: () => config.limits.pdf.global,
    perUser: () => config.limits.pdf.perUser,
    retryAfterSeconds: 10,
    messages: { user: ownMessage('o prelucrare PDF'), global: busyMessage('documente PDF') },
  }),
  dwg: new WorkSlots({
    kind: 'dwg',
    global: () => config.limits.dwg.global,
    perUser: () => config.limits.dwg.perUser,
    retryAfterSeconds: 10,
    messages: { user: ownMessage('o conversie DWG'), global: busyMessage('conversii DWG') },
  }),
  ai: new WorkSlots({
    kind: 'ai',
    global: () => config.limits.ai.global,
    perUser: () => config.limits.ai.perUser,
    retryAfterSeconds: 5,
    messages: { user: ownMessage('întrebări la asistent'), global: busyMessage('întrebări la asistent') },
  }),
  localExport: new WorkSlots({
    kind: 'localExport',
    global: () => config.exports.localMaxConcurrent,
    perUser: () => 1,
    retryAfterSeconds: 30,
    messages: {
      user: 'Aveți deja un export local în lucru. Așteptați să se termine, apoi încercați din nou.',
      global: 'Se construiesc deja prea multe exporturi locale. Încercați din nou peste un minut.',
    },
  }),
  /** Selection exports (spec 4.1): one ogr2ogr of up to 5,000 features each. */
  selectionExport: new WorkSlots({
    kind: 'selectionExport',
    global: () => config.limits.selectionExport.global,
    perUser: () => config.limits.selectionExport.perUser,
    retryAfterSeconds: 5,
    messages: { user: ownMessage('un export al selecției'), global: busyMessage('exporturi') },
  }),
  portal: new WorkSlots({
    kind: 'portal',
    global: () => config.limits.portal.global,
    perUser: () => config.limits.portal.perUser,
    retryAfterSeconds: 5,
    messages: { user: ownMessage('prea multe căutări pe portal'), global: busyMessage('cereri către portalul de cadastru') },
  }),
  /**
   * OGC item pages run a statement of up to 10,000 features each: a few at a time per caller
   * (QGIS asks for several tiles of a view at once) and a bounded number for everyone.
   */
  ogcItems: new WorkSlots({
    kind: 'ogcItems',
    global: () => 16,
    perUser: () => 4,
    retryAfterSeconds: 2,
    messages: {
      user: 'Prea multe pagini de obiecte cerute în același timp. Încercați din nou peste câteva secunde.',
      global: 'Serviciul OGC este ocupat. Încercați din nou peste câteva secunde.',
    },
  }),
  vault: new WorkSlots({
    kind: 'vault',
    global: () => config.limits.vault.global,
    perUser: () => config.limits.vault.perUser,
    retryAfterSeconds: 2,
    messages: { user: ownMessage('prea multe operații în seif'), global: busyMessage('operații în seif') },
  }),
};

/**
 * Takes a slot of `slots` for the caller (or throws 429) and gives it back when the answer is
 * finished or the client left: for work that stops with its response (its children are killed on
 * the same `close`).
 */
export async function holdSlot(slots: WorkSlots, req: Request, res: Response): Promise<Release> {
  const release = await slots.acquire(callerKey(req));
  res.once('close', release);
  return release;
}
