import { errors } from './errors';
import type { Db } from './db/pool';
import { WorkSlotLeases } from './limits/workSlotLeases';
import { childLogger } from './log';
import { heavyWorkRefused, trackWorkSlots } from './metrics';

const log = childLogger('limits');

/** How often a caller waiting in the queue of a shared kind asks for a slot again. */
const SHARED_POLL_MS = 100;

/** The slots of every process, once `shareWorkSlots` ran (shared mode); absent: this process's own. */
let leases: WorkSlotLeases | undefined;

/**
 * Shared mode (config.app.sharedLimits, issue 44 item 3): from here on every named `WorkSlots`
 * counts its `acquire`d slots across every process on `db`. Called once by the web process's entry point.
 */
export function shareWorkSlots(db: Db, ttlMs: number): WorkSlotLeases {
  leases?.stop();
  leases = new WorkSlotLeases(db, ttlMs);
  return leases;
}

/** Back to per-process slots (tests). */
export function unshareWorkSlots(): void {
  leases?.stop();
  leases = undefined;
}

/**
 * The one bounded-concurrency helper: runs `fn` over `items` with at most `limit` in flight;
 * results in input order. After a failure no item starts, the running ones end, then the first
 * error is thrown (so no child process or portal call outlives the caller).
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
  return out;
}

/** Gives a slot back; calling it more than once is harmless. */
export type Release = () => void;

/**
 * Whose work this is, as every cap and door takes it (these slots, the portal's door, the heavy
 * reads, the fair rate limiter of outside calls): the caller's key (`u:<user id>`, or
 * `ip:<address>` without a session) and a signal that aborts when the caller no longer waits (the
 * client left, or a deadline passed).
 */
export interface Caller {
  key: string;
  signal?: AbortSignal;
}

export interface WorkSlotsOptions {
  /** Its name in the metrics (work in flight, waiting, refused); unnamed slots are not shown. */
  kind?: string;
  /** Slots held at once by everyone together. */
  global: () => number;
  /** Slots held at once by one caller. */
  perUser: () => number;
  /** Retry-After of the 429 (seconds). */
  retryAfterSeconds: number;
  /** Romanian messages of the two refusals. */
  messages: { user: string; global: string };
  /**
   * A short, bounded wait when only the global cap is reached: at most `max` callers wait, each
   * at most `waitMs`, then 429. Absent: refused at once.
   */
  queue?: { max: number; waitMs: number };
}

interface Waiter {
  key: string;
  grant: () => void;
}

/**
 * The one limiter of heavy work (PDF tools, DWG conversion, AI chat, local exports, portal-bound
 * requests, key derivation): a global and a per-caller cap on work in flight; past them the caller
 * gets 429 `rate_limited` with Retry-After, or waits in a short bounded queue. Never an unbounded
 * queue: a flood by one caller is refused, not stored. In shared mode (`shareWorkSlots`) the caps
 * of `acquire`/`run` hold across every web process (a slot is a lease row,
 * domain/limits/workSlotLeases.ts) and a queued caller polls for a slot; `tryAcquire` stays this
 * process's, since what it guards (a read-ahead on this process's pool, a body parsed in its
 * worker threads, an upload on its temp disk) is the process's own.
 */
export class WorkSlots {
  private readonly held = new Map<string, number>();
  private total = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly opts: WorkSlotsOptions) {
    if (opts.kind) trackWorkSlots(opts.kind, this);
  }

  get active(): number {
    return this.total;
  }

  get queued(): number {
    return this.waiting.length + this.waitingShared;
  }

  /** Callers of this process polling for a shared slot. */
  private waitingShared = 0;

  private refuse(cap: 'user' | 'global'): never {
    if (this.opts.kind) heavyWorkRefused.inc({ kind: this.opts.kind, cap });
    const message = cap === 'user' ? this.opts.messages.user : this.opts.messages.global;
    throw errors.rateLimited(this.opts.retryAfterSeconds, message);
  }

  private take(key: string): Release {
    this.total++;
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.held.get(key) ?? 1) - 1;
      if (n > 0) this.held.set(key, n);
      else this.held.delete(key);
      this.total--;
      this.wake();
    };
  }

  private wake(): void {
    while (this.waiting.length && this.total < this.opts.global()) {
      // The first waiter whose caller is still under its own cap (their slots may have filled meanwhile).
      const i = this.waiting.findIndex((w) => (this.held.get(w.key) ?? 0) < this.opts.perUser());
      if (i < 0) return;
      this.waiting.splice(i, 1)[0].grant();
    }
  }

  /** Takes a slot now or throws 429, never waiting: for work nobody waits on (a read-ahead). */
  tryAcquire(key: string): Release {
    if ((this.held.get(key) ?? 0) >= this.opts.perUser()) this.refuse('user');
    if (this.total >= this.opts.global() || this.waiting.length) this.refuse('global');
    return this.take(key);
  }

  /**
   * Takes a slot for `key` (a caller: `u:<user id>`), or throws 429; waits only in the bounded
   * queue, and stops waiting when `signal` aborts (rejecting with its reason: a client gone is
   * the 499 api/http/download.ts `clientGone` aborts with).
   */
  async acquire(key: string, signal?: AbortSignal): Promise<Release> {
    if (leases && this.opts.kind) return this.acquireShared(leases, this.opts.kind, key, signal);
    return this.acquireHere(key, signal);
  }

  private async acquireShared(shared: WorkSlotLeases, kind: string, key: string, signal?: AbortSignal): Promise<Release> {
    const queue = this.opts.queue;
    const until = Date.now() + (queue?.waitMs ?? 0);
    let waiting = false;
    try {
      for (;;) {
        let claim;
        try {
          claim = await shared.claim(kind, key, this.opts.global(), this.opts.perUser());
        } catch (err) {
          // The work matters more than its bookkeeping: this process's caps until the store answers.
          log.warn({ kind, err: (err as Error).message }, 'shared work slots unavailable; capping in process');
          return await this.acquireHere(key, signal);
        }
        if ('lease' in claim) {
          const lease = claim.lease;
          const local = this.take(key);
          return () => {
            local();
            void shared.release(lease);
          };
        }
        if (claim.refused === 'user') this.refuse('user');
        if (!queue || Date.now() >= until || (!waiting && this.waitingShared >= queue.max)) this.refuse('global');
        signal?.throwIfAborted();
        if (!waiting) {
          waiting = true;
          this.waitingShared++;
        }
        await pause(SHARED_POLL_MS, signal);
      }
    } finally {
      if (waiting) this.waitingShared--;
    }
  }

  private async acquireHere(key: string, signal?: AbortSignal): Promise<Release> {
    const mine = this.held.get(key) ?? 0;
    const waitingMine = this.waiting.filter((w) => w.key === key).length;
    if (mine + waitingMine >= this.opts.perUser()) this.refuse('user');
    if (this.total < this.opts.global() && this.waiting.length === 0) return this.take(key);
    const queue = this.opts.queue;
    if (!queue || this.waiting.length >= queue.max) this.refuse('global');
    signal?.throwIfAborted();
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        key,
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(this.take(key));
        },
      };
      const leave = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
      };
      const onAbort = () => {
        clearTimeout(timer);
        leave();
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        leave();
        try {
          this.refuse('global');
        } catch (err) {
          reject(err);
        }
      }, queue.waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Runs `fn` holding a slot of `key`; the slot is given back when `fn` settles. */
  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(key, signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
