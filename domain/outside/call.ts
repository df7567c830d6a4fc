/**
 * The one way the product calls an outside system (the land-registry portal, the certificate
 * portal, the central GIS API, the PDF service, the status authority, the AI providers): each
 * client keeps its own protocol (paths, bodies, sessions) and runs every exchange through
 * `outsideCall`, which gives it
 * - the service's shared rate limiter (`outsideLimiter`: one schedule in PostgreSQL for all
 *   processes, fair among the callers of a process);
 * - a deadline per exchange and the caller's stop (`outsideSignal`: the request's deadline or its
 *   client leaving, the activity's cancellation), so heavy work stops when its caller leaves;
 * - retries only for idempotent calls and only outside a Temporal activity, whose own retry
 *   policy (temporal/common/retryPolicies.ts) already covers it;
 * - one reading of a transport failure (`transportFailure`) and one mapping to the contract's
 *   error (`outsideError`, the Romanian messages of each service).
 */
import { config } from '../config';
import type { Db } from '../db/pool';
import { AppError } from '../errors';
import { callerSignals, insideActivity } from './caller';
import { RateLimiter, SharedPace } from './rateLimiter';

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

/** A deadline of `timeoutMs` joined with the caller's stop and any signal of the client's own. */
export function outsideSignal(timeoutMs: number, own?: AbortSignal): AbortSignal {
  return AbortSignal.any([AbortSignal.timeout(timeoutMs), ...callerSignals(), ...(own ? [own] : [])]);
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

export type OutsideCallOptions = {
  service: OutsideService;
  /** Safe to send twice (a read, a pure transform, a PUT of the same value): only then retried. */
  idempotent: boolean;
  retry?: RetryPolicy;
  /** Whether this failure may pass on another try (a 5xx, no answer; not a refusal, not maintenance). */
  transient?: (err: unknown) => boolean;
  /** The client's own signal besides the caller's (e.g. a request's `clientGone`). */
  signal?: AbortSignal;
} & (
  | {
      /** The caller's store's pool, whose shared schedule the service's limiter keeps. */
      db: Db;
      /** Rate of the service's limiter; its configured rate by default. */
      perSecond?: number;
      unpaced?: never;
    }
  | {
      /** Skips the limiter: the client paces each exchange itself (a call may sign in again first). */
      unpaced: true;
    }
);

const NO_RETRY: RetryPolicy = { retries: 0, baseDelayMs: 0 };

/**
 * Runs `exchange` (one try of the call) under the service's limiter, again after a transient
 * failure while the policy allows: only an idempotent call, only outside an activity, never once
 * the caller has gone.
 */
export async function outsideCall<T>(opts: OutsideCallOptions, exchange: (attempt: number) => Promise<T>): Promise<T> {
  const retry = opts.idempotent && !insideActivity() ? (opts.retry ?? NO_RETRY) : NO_RETRY;
  const limiter = opts.unpaced ? undefined : outsideLimiter(opts.db, opts.service, opts.perSecond);
  for (let attempt = 1; ; attempt++) {
    const gone = callerGone(opts.signal);
    if (gone) throw gone.reason;
    await limiter?.take();
    try {
      return await exchange(attempt);
    } catch (err) {
      if (attempt > retry.retries || !(opts.transient?.(err) ?? false) || callerGone(opts.signal)) throw err;
      await new Promise((r) => setTimeout(r, retry.baseDelayMs * 2 ** (attempt - 1)));
    }
  }
}
