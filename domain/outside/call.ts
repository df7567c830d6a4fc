/**
 * The one way the product calls an outside system (the land-registry portal, the certificate
 * portal, the central GIS API, the PDF service, the status authority, the AI providers): each
 * client keeps only its protocol (paths, bodies, how to sign in, what an expired session looks
 * like) and runs every call through `outsideCall`, which gives it
 * - one transport (`./transport.ts` `send`, and `outsideFetch` for the AI vendors' SDKs): undici
 *   on one keep-alive pool, each exchange paced by the service's shared rate limiter
 *   (`outsideLimiter`: one schedule in PostgreSQL for all processes, fair among the callers of a
 *   process) and bounded by its deadline and the caller's stop (the request's deadline or its
 *   client leaving, the activity's cancellation), so heavy work stops when its caller leaves;
 * - one session mechanism (`OutsideSession`): on the service's "session expired" answer the
 *   session is refreshed and the exchange sent again;
 * - retries only for idempotent calls and only outside a Temporal activity, whose own retry
 *   policy (temporal/common/retryPolicies.ts) already covers it;
 * - one reading of a transport failure (`transportFailure`) and one mapping to the contract's
 *   error (`outsideError`, the Romanian messages of each service).
 */
import { config } from '../config';
import type { Db } from '../db/pool';
import { AppError } from '../errors';
import { childLogger } from '../log';
import { outsideCallDuration, outsideCalls } from '../metrics';
import { callerSignals, insideActivity } from './caller';
import { RateLimiter, SharedPace } from './rateLimiter';

const log = childLogger('outside');

export type OutsideService = 'landreg' | 'cfportal' | 'central' | 'pdfService' | 'statusAuthority' | 'ai';

/** The service's name as a Romanian sentence starts with it. */
export const SERVICE_LABEL: Record<OutsideService, string> = {
  landreg: 'Portalul de cadastru',
  cfportal: 'Portalul de extrase CF',
  central: 'API-ul central',
  pdfService: 'Serviciul PDF',
  statusAuthority: 'Autoritatea de stare',
  ai: 'Asistentul AI',
};

/** Queue bounds of the callers of one process; only the portal's are configurable today. */
function boundsOf(service: OutsideService) {
  const label = SERVICE_LABEL[service];
  const noun = service === 'landreg' ? 'portalul de cadastru' : label.charAt(0).toLowerCase() + label.slice(1);
  return {
    perCaller: config.limits.portalQueuePerUser,
    total: config.limits.portalQueueTotal,
    messages: {
      caller: `Aveți prea multe cereri către ${noun} în așteptare; reîncercați în câteva secunde.`,
      total: `${label} primește prea multe cereri în acest moment; reîncercați în câteva secunde.`,
    },
  };
}

const limiters = new WeakMap<Db, Map<string, RateLimiter>>();

/** The service's limiter on `db`'s shared schedule (one per process, store and rate); `db` is the caller's store's pool. */
export function outsideLimiter(db: Db, service: OutsideService, perSecond = config.outside.requestsPerSecond[service]): RateLimiter {
  let byService = limiters.get(db);
  if (!byService) limiters.set(db, (byService = new Map()));
  const key = `${service}|${perSecond}`;
  let l = byService.get(key);
  if (!l) byService.set(key, (l = new RateLimiter(new SharedPace(db, service, perSecond), boundsOf(service))));
  return l;
}

/** The caller stopped waiting: its deadline, its client leaving, or the activity's cancellation. */
export function callerGone(own?: AbortSignal): AbortSignal | undefined {
  return [...callerSignals(), ...(own ? [own] : [])].find((s) => s.aborted);
}

export type TransportFailure = 'timeout' | 'aborted' | 'unreachable';

/**
 * What an exchange that threw means: the caller left (its reason is rethrown as it came), our
 * deadline passed, or no answer at all (refused, reset, DNS).
 */
export function transportFailure(err: unknown, own?: AbortSignal): TransportFailure {
  if (callerGone(own)) return 'aborted';
  const e = err as { name?: string; code?: string; cause?: { name?: string; code?: string } };
  const name = e?.name ?? e?.cause?.name;
  if (name === 'TimeoutError' || name === 'AbortError' || e?.code === 'UND_ERR_ABORTED' || e?.code === 'ABORT_ERR') return 'timeout';
  return 'unreachable';
}

export type OutsideFailure = 'timeout' | 'unreachable' | 'maintenance' | 'status' | 'malformed';

interface FailureBody {
  status?: number;
  code?: string;
  message: string;
  hint?: string;
}

const PDF_UNAVAILABLE: FailureBody = {
  status: 503,
  code: 'pdf_service_unavailable',
  message: 'Serviciul PDF din cloud nu este disponibil momentan.',
  hint: 'Încercați din nou peste câteva minute sau folosiți un nivel de comprimare local (balanced, high, extreme).',
};
const PDF_ERROR: FailureBody = {
  status: 502,
  code: 'pdf_service_error',
  message: 'Serviciul PDF din cloud a răspuns cu o eroare.',
  hint: 'Încercați din nou; dacă eroarea persistă, folosiți un nivel de comprimare local.',
};

/** Each service's answer to each failure: the bodies its client already answered before this module. */
const FAILURES: Record<OutsideService, Partial<Record<OutsideFailure, FailureBody>>> = {
  landreg: {
    timeout: { message: 'Portalul de cadastru nu a răspuns la timp.' },
    unreachable: { message: 'Portalul de cadastru nu poate fi contactat.' },
    maintenance: { message: 'Portalul de cadastru este în mentenanță. Încercați mai târziu.' },
    status: { message: 'Portalul de cadastru a răspuns cu o eroare.' },
    malformed: { message: 'Portalul de cadastru a trimis un răspuns neașteptat.' },
  },
  cfportal: {},
  central: {
    timeout: { message: 'API-ul central nu a răspuns în 30 de secunde. Încercați din nou.' },
    status: { message: 'API-ul central a răspuns cu o eroare.' },
  },
  pdfService: { timeout: PDF_UNAVAILABLE, unreachable: PDF_UNAVAILABLE, maintenance: PDF_UNAVAILABLE, status: PDF_ERROR, malformed: PDF_ERROR },
  statusAuthority: {},
  ai: {},
};

const STATUS: Record<OutsideFailure, number> = { timeout: 504, unreachable: 502, maintenance: 503, status: 502, malformed: 502 };
const CODE: Record<OutsideFailure, string> = {
  timeout: 'upstream_timeout',
  unreachable: 'upstream_error',
  maintenance: 'portal_maintenance',
  status: 'upstream_error',
  malformed: 'upstream_error',
};

/** The message of `failure` at `service` (a sentence naming the service where it has none of its own). */
export function outsideMessage(service: OutsideService, failure: OutsideFailure): string {
  const label = SERVICE_LABEL[service];
  return (
    FAILURES[service][failure]?.message ??
    {
      timeout: `${label} nu a răspuns la timp.`,
      unreachable: `${label} nu a răspuns corect.`,
      maintenance: `${label} este în mentenanță. Încercați mai târziu.`,
      status: `${label} nu a răspuns corect.`,
      malformed: `${label} nu a răspuns corect.`,
    }[failure]
  );
}

/**
 * The one mapping of an outside failure to the contract's error body. `hint` is what happened
 * (a path and a status, never a credential), cut to 200 characters.
 */
export function outsideError(service: OutsideService, failure: OutsideFailure, hint?: string, cause?: unknown): AppError {
  const own = FAILURES[service][failure];
  return new AppError(own?.status ?? STATUS[failure], own?.code ?? CODE[failure], outsideMessage(service, failure), {
    hint: own?.hint ?? hint?.slice(0, 200),
    cause,
  });
}

export interface RetryPolicy {
  /** Tries after the first. */
  retries: number;
  /** Wait before the n-th retry: base × 2^(n-1). */
  baseDelayMs: number;
}

export interface OutsideCallOptions {
  service: OutsideService;
  /** Safe to send twice (a read, a pure transform, a PUT of the same value): only then retried. */
  idempotent: boolean;
  retry?: RetryPolicy;
  /** Whether this failure may pass on another try (a 5xx, no answer; not a refusal, not maintenance). */
  transient?: (err: unknown) => boolean;
  /** The client's own signal besides the caller's (e.g. a request's `clientGone`). */
  signal?: AbortSignal;
}

/**
 * A service's session (a portal cookie, the caller's access token): the client says how to get
 * one and how the service answers an expired one; the base applies it the same way for all.
 * An exchange answered "session expired" was refused before the service acted on it, so it is
 * sent again with the refreshed session whatever its method (a POST that adds to a cart too):
 * that is not a retry of the call, which stays once for a non-idempotent one.
 */
export interface OutsideSession<S, T> {
  /** The session to start with (a stored cookie or token; signing in when there is none). */
  current(): Promise<S>;
  /** Whether `answer` is the service's "session expired" (typically a 401). */
  expired(answer: T): boolean;
  /** A live session in place of `stale` (signing in, or adopting one another caller made); throws when the account is refused. */
  refresh(stale: S): Promise<S>;
  /** How many refreshes one try of the call may make; 1 by default. */
  refreshes?: number;
  /** The answer is still "expired" after the last refresh: what the call answers (by default that answer). */
  exhausted?(answer: T, session: S): T | Promise<T>;
}

const NO_RETRY: RetryPolicy = { retries: 0, baseDelayMs: 0 };

/**
 * Runs `exchange` (one try of the call, sent through `domain/outside/transport.ts` `send`) with
 * the service's session, refreshed and sent again when the service answers that it expired;
 * again after a transient failure while the policy allows: only an idempotent call, only outside
 * an activity, never once the caller has gone.
 */
export async function outsideCall<T, S = undefined>(
  opts: OutsideCallOptions & { session?: OutsideSession<S, T> },
  exchange: (attempt: number, session: S) => Promise<T>,
): Promise<T> {
  const end = outsideCallDuration.startTimer({ service: opts.service });
  const outcome = (o: 'ok' | 'unavailable' | 'error' | 'aborted') => {
    outsideCalls.inc({ service: opts.service, outcome: o });
    end({ outcome: o });
  };
  try {
    const answer = await tryCall(opts, exchange);
    outcome('ok');
    return answer;
  } catch (err) {
    outcome(callerGone(opts.signal) ? 'aborted' : opts.transient?.(err) ? 'unavailable' : 'error');
    throw err;
  }
}

async function tryCall<T, S>(
  opts: OutsideCallOptions & { session?: OutsideSession<S, T> },
  exchange: (attempt: number, session: S) => Promise<T>,
): Promise<T> {
  const retry = opts.idempotent && !insideActivity() ? (opts.retry ?? NO_RETRY) : NO_RETRY;
  for (let attempt = 1; ; attempt++) {
    const gone = callerGone(opts.signal);
    if (gone) throw gone.reason;
    try {
      return await withSession(opts.session, (session) => exchange(attempt, session));
    } catch (err) {
      if (attempt > retry.retries || !(opts.transient?.(err) ?? false) || callerGone(opts.signal)) throw err;
      // The failure's class only: a message may quote a path or a field.
      log.info({ service: opts.service, attempt, failure: (err as Error)?.constructor?.name }, 'outside call failed; trying again');
      await new Promise((r) => setTimeout(r, retry.baseDelayMs * 2 ** (attempt - 1)));
    }
  }
}

async function withSession<S, T>(session: OutsideSession<S, T> | undefined, exchange: (session: S) => Promise<T>): Promise<T> {
  if (!session) return exchange(undefined as S);
  let current = await session.current();
  for (let refreshed = 0; ; refreshed++) {
    const answer = await exchange(current);
    if (!session.expired(answer)) return answer;
    if (refreshed >= (session.refreshes ?? 1)) return session.exhausted ? session.exhausted(answer, current) : answer;
    current = await session.refresh(current);
  }
}
