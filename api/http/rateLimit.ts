/**
 * Rate limits of CONTRACT.md section 5: 600 requests a minute per user on /api/*, 60 a minute per
 * bearer token on token routes. Answers 429 with Retry-After and the contract's error body.
 * Without a session the caller's address is the key whatever headers it sends (a made-up bearer
 * token buys no fresh bucket), and wrong tokens (Bearer or Basic) are counted per address, so a
 * token cannot be guessed at request speed. The address is the client's as the deployment sees it
 * (`req.ip` under express's `trust proxy`, config.app.trustProxy). A valid personal token has
 * signed its request in before these run (req.auth), so it is never counted nor refused: one
 * client guessing from the office's address does not lock out its QGIS users. `apiRateLimits()`
 * is the one set, shared by every mount point (/api, /ogc, /tiles). In shared mode (WEB > 1 or
 * SHARED_LIMITS=1) the counts live in PostgreSQL (domain/limits/rateLimitStore.ts), so they hold
 * across every web process; otherwise in this process's memory.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import type { Db } from '../../domain/db/pool';
import { PgRateLimitStore } from '../../domain/limits/rateLimitStore';
import type { PageRefusal } from '../../domain/limits/pageRefusal';
import { WorkSlots, type Release } from '../../domain/concurrency';
import { errors } from '../../domain/errors';
import { portalSlots, callerKeyOf } from '../../domain/outside/service';
import { presentedToken } from '../auth/bearer';
import { isGuardedPath } from '../auth/pageGuard';
import { config } from '../../domain/config';
import { rateLimited } from '../../domain/metrics';
import { clientGone, onClose } from './download';

const WINDOW_MS = 60_000;

/** Which limit refused, in the metrics (geoportal_rate_limited_total's `cap`). */
type Cap = 'user' | 'token' | 'bearer_failures';

/** Set on a page request past the per-user limit (pageRateLimit); read by the pages' getLoadContext. */
const PAGE_REFUSAL = Symbol('pageRefusal');
const PAGE_DOOR = Symbol('pageDoor');
type Marks = Record<symbol, unknown>;

export function pageRefusalOf(res: Response): PageRefusal | undefined {
  return (res.locals as Marks)[PAGE_REFUSAL] as PageRefusal | undefined;
}

const handlerFor = (cap: Cap): Options['handler'] => (req, res, next, options) => {
  rateLimited.inc({ cap });
  const resetTime = (req as any).rateLimit?.resetTime as Date | undefined;
  const retryAfter = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + options.windowMs) - Date.now()) / 1000));
  if ((res.locals as Marks)[PAGE_DOOR]) {
    // A page answers through Remix (pageRateLimit): its loaders refuse before any work.
    (res.locals as Marks)[PAGE_REFUSAL] = { retryAfterSeconds: retryAfter } satisfies PageRefusal;
    res.set({ 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store' });
    return next();
  }
  const err = errors.rateLimited(retryAfter);
  res.status(429).set(err.headers ?? {}).json(err.toBody());
};

/** One minute window, the contract's headers and 429 body; each limiter adds its key and rules. */
function minuteLimit(cap: Cap, limit: number, rules: Pick<Partial<Options>, 'keyGenerator' | 'skip' | 'skipSuccessfulRequests' | 'requestWasSuccessful'>, shared?: Db) {
  return rateLimit({
    ...(shared && {
      store: new PgRateLimitStore(shared, `${cap}:`),
      // A store that does not answer lets the request through (logged) rather than failing it.
      passOnStoreError: true,
    }),
    windowMs: WINDOW_MS,
    limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    validate: { keyGeneratorIpFallback: false },
    handler: handlerFor(cap),
    ...rules,
  });
}

/** Token calls without a signed-in caller (session and valid-token callers are counted per user instead). */
const bearerCall = (req: Parameters<NonNullable<Options['skip']>>[0]) => !req.auth && presentedToken(req) !== null;

/** Who a limit counts: the signed-in user, else the address (whatever headers it sends). */
export function callerKey(req: Request): string {
  return req.auth ? callerKeyOf(req.auth.user.id) : `ip:${req.ip}`;
}

/** `shared`: the store whose counts every process shares (shared mode); absent, this process counts alone. */
export function userRateLimit(limit = config.app.rateLimitPerMinute, shared?: Db) {
  return minuteLimit('user', limit, { keyGenerator: callerKey }, shared);
}

export function tokenRateLimit(limit = config.app.tokenRateLimitPerMinute, shared?: Db) {
  return minuteLimit(
    'token',
    limit,
    {
      skip: (req) => !bearerCall(req),
      keyGenerator: (req) => `t:${createHash('sha256').update(presentedToken(req) ?? '').digest('hex').slice(0, 16)}`,
    },
    shared,
  );
}

/** Wrong tokens (answers 401) per address; correct ones and session callers do not count. */
export function bearerFailureLimit(limit = config.app.bearerFailuresPerMinute, shared?: Db) {
  return minuteLimit(
    'bearer_failures',
    limit,
    {
      skip: (req) => !bearerCall(req),
      keyGenerator: (req) => `bf:${req.ip}`,
      skipSuccessfulRequests: true,
      requestWasSuccessful: (_req, res) => res.statusCode !== 401,
    },
    shared,
  );
}

/**
 * The limits of every rate-limited mount, sharing their counters: `all` on /api, /ogc and the
 * tile-rebuild webhook; `bearerFailures` alone on /tiles (a map view asks for dozens of tiles at
 * once, so no per-user count there, but a wrong token is a wrong token wherever it is tried).
 */
export function apiRateLimits(shared?: Db) {
  const user = userRateLimit(undefined, shared);
  const token = tokenRateLimit(undefined, shared);
  const bearerFailures = bearerFailureLimit(undefined, shared);
  return { all: [user, token, bearerFailures], user, token, bearerFailures };
}

/**
 * The page door: a page's document or data request (`/x`, `/x.data`, a form post) counts on the
 * caller's one per-user counter, the same `user` limiter as /api and /ogc, so pages and API share
 * the 600 a minute; static files do not count (a page load brings dozens). Past the limit the
 * request goes on to Remix marked (PAGE_REFUSAL) and every loader and action refuses with a 429
 * before its work (requireSession, web/app/lib/auth.server.ts): Remix then renders its error page
 * or encodes the refusal for its client router, which a JSON 429 from here would break.
 */
export function pageRateLimit(user: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (!isGuardedPath(req.path)) return next();
    (res.locals as Marks)[PAGE_DOOR] = true;
    return user(req, res, next);
  };
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
  /** Portal-bound work, whoever starts it: the one door's slots (domain/outside/door.ts). */
  portal: portalSlots,
  /**
   * OGC item pages run a statement of up to 10,000 features each: a few at a time per caller
   * (QGIS asks for several tiles of a view at once) and fewer for everyone than the pool holds
   * (ten connections by default, shared with every session check), so a few QGIS users never
   * take all of it; a page past the global cap waits its turn a moment rather than failing a
   * layer in QGIS.
   */
  ogcItems: new WorkSlots({
    kind: 'ogcItems',
    global: () => config.limits.ogcItems.global,
    perUser: () => config.limits.ogcItems.perUser,
    retryAfterSeconds: 2,
    queue: { max: 32, waitMs: 5_000 },
    messages: {
      user: 'Prea multe pagini de obiecte cerute în același timp. Încercați din nou peste câteva secunde.',
      global: 'Serviciul OGC este ocupat. Încercați din nou peste câteva secunde.',
    },
  }),
  /** JSON bodies over the inline size, parsed in a worker thread (api/http/jsonBody.ts), held for the request. */
  jsonBody: new WorkSlots({
    kind: 'jsonBody',
    global: () => config.limits.jsonBody.global,
    perUser: () => config.limits.jsonBody.perUser,
    retryAfterSeconds: 5,
    messages: { user: ownMessage('o cerere mare'), global: busyMessage('cereri mari') },
  }),
  /** Multipart uploads (api/http/upload.ts): per user only, so one user's large file never refuses another's. */
  upload: new WorkSlots({
    kind: 'upload',
    global: () => Number.MAX_SAFE_INTEGER,
    perUser: () => config.uploads.perUser,
    retryAfterSeconds: 10,
    messages: {
      user: 'Aveți deja prea multe fișiere în curs de încărcare; așteptați să se termine, apoi reîncercați.',
      global: busyMessage('încărcări'),
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
 * the same `close`). A client that leaves while it waits in the slot's queue stops waiting.
 */
export async function holdSlot(slots: WorkSlots, req: Request, res: Response): Promise<Release> {
  const release = await slots.acquire(callerKey(req), clientGone(res));
  onClose(res, release);
  return release;
}
