/**
 * A per-process token bucket for portal calls. The landreg task queue's activity rate limit
 * bounds how many activities start; this bounds how many HTTP calls the activities (and the API
 * process) make, since one download activity fetches several pages.
 *
 * Shared fairly: calls wait in one queue per caller and the tokens go round the callers in turn,
 * so one user's flood waits behind its own calls, not in front of everyone else's. The wait is
 * bounded: past `perCaller` waiting calls of one caller, or `total` of everyone, a call is refused
 * (429) instead of queued; a call whose caller's signal aborts (deadline, client gone) leaves the
 * queue at once. The caller is read from the portal-caller context (`withPortalCaller`, set by the
 * API around a request's portal work); calls without one (workflow activities, paced by their task
 * queue) share one background lane and are never refused.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { errors } from '../errors';

export interface PortalCaller {
  /** Whose calls these are (`u:<user id>`). */
  key: string;
  /** Aborts at the request's deadline or when its client leaves: queued and running calls stop. */
  signal?: AbortSignal;
}

const callerContext = new AsyncLocalStorage<PortalCaller>();

/** Runs `fn` with its portal calls counted as `caller`'s and stopped by its signal. */
export function withPortalCaller<T>(caller: PortalCaller, fn: () => Promise<T>): Promise<T> {
  return callerContext.run(caller, fn);
}

export function currentPortalCaller(): PortalCaller | undefined {
  return callerContext.getStore();
}

const BACKGROUND = '(background)';

export interface QueueBounds {
  /** Calls one caller may have waiting. */
  perCaller: number;
  /** Calls waiting, everyone together. */
  total: number;
}

interface Waiter {
  grant: () => void;
}

export class RateLimiter {
  private tokens: number;
  private last = Date.now();
  /** Waiting calls per caller, in the order the callers are served. */
  private readonly lanes = new Map<string, Waiter[]>();
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly perSecond: number,
    private readonly bounds: QueueBounds = { perCaller: Number.POSITIVE_INFINITY, total: Number.POSITIVE_INFINITY },
  ) {
    this.tokens = perSecond;
  }

  /** Calls waiting for a token (all callers). */
  get queued(): number {
    return this.waiting;
  }

  private refill(): void {
    const now = Date.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }

  private drain = (): void => {
    this.timer = undefined;
    this.refill();
    while (this.waiting && this.tokens >= 1) {
      // Round robin: the caller at the head of the rotation gets one token, then goes to the back.
      const [key, lane] = this.lanes.entries().next().value as [string, Waiter[]];
      this.lanes.delete(key);
      const waiter = lane.shift()!;
      if (lane.length) this.lanes.set(key, lane);
      this.waiting--;
      this.tokens -= 1;
      waiter.grant();
    }
    if (this.waiting) this.timer = setTimeout(this.drain, Math.ceil(1000 / this.perSecond));
  };

  /** Resolves when a call may be made; throws 429 past the queue bounds, the signal's reason on abort. */
  take(caller: PortalCaller | undefined = currentPortalCaller()): Promise<void> {
    if (this.perSecond <= 0) return Promise.resolve();
    caller?.signal?.throwIfAborted();
    const key = caller?.key ?? BACKGROUND;
    const lane = this.lanes.get(key) ?? [];
    if (caller) {
      if (lane.length >= this.bounds.perCaller) {
        throw errors.rateLimited(2, 'Aveți prea multe cereri către portalul de cadastru în așteptare; reîncercați în câteva secunde.');
      }
      if (this.waiting >= this.bounds.total) {
        throw errors.rateLimited(2, 'Portalul de cadastru primește prea multe cereri în acest moment; reîncercați în câteva secunde.');
      }
    }
    return new Promise<void>((resolve, reject) => {
      const signal = caller?.signal;
      const onAbort = () => {
        const mine = this.lanes.get(key);
        const i = mine?.indexOf(waiter) ?? -1;
        if (i < 0) return;
        mine!.splice(i, 1);
        if (!mine!.length) this.lanes.delete(key);
        this.waiting--;
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      lane.push(waiter);
      if (!this.lanes.has(key)) this.lanes.set(key, lane);
      this.waiting++;
      if (!this.timer) this.drain();
    });
  }
}
