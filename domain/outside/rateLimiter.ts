/**
 * The rate limiter of one outside service, shared by every process (API, workers) through a row
 * of `outside_call_pace` (`SharedPace`): each call takes the next free slot of the service's
 * schedule, so N processes together stay under the service's rate instead of N times it.
 *
 * Within a process the calls are shared fairly: they wait in one queue per caller and the slots go
 * round the callers in turn, so one user's flood waits behind its own calls, not in front of
 * everyone else's. The wait is bounded: past `perCaller` waiting calls of one caller, or `total`
 * of everyone, a call is refused (429) instead of queued; a call whose caller's signal aborts
 * (deadline, client gone) leaves the queue at once. The caller is read from the outside-caller
 * context (`domain/outside/caller.ts`); calls without one (workflow activities, paced also by
 * their task queue; a user's work always has a caller, given by the door of ./door.ts) share one
 * background lane. That lane is one caller in the rotation, so however long it grows it takes
 * one slot in turn and cannot starve the users; its calls do not count in the users' total, so
 * it never gets a user refused; and it is bounded too (`total` calls waiting), so a runaway of
 * work without a caller is refused rather than stored.
 */
import { errors } from '../errors';
import type { Db } from '../db/pool';
import { childLogger } from '../log';
import type { Caller } from '../concurrency';
import { currentOutsideCaller } from './caller';

const log = childLogger('outside');

const BACKGROUND = '(background)';

export interface QueueBounds {
  /** Calls one caller may have waiting. */
  perCaller: number;
  /** Calls waiting, everyone together. */
  total: number;
  /** The Romanian 429 messages: this caller's queue is full, everyone's is. */
  messages?: { caller: string; total: string };
}

/**
 * Where the slots come from. `reserve(n)` books the next `n` slots of the schedule and answers
 * when the first one starts (epoch ms, this process's clock); the others follow at the interval.
 * A full second's worth of slots may start at once after a quiet spell (the burst).
 */
export interface Pace {
  readonly perSecond: number;
  reserve(n: number): Promise<number>;
}

/** The schedule in this process only (unit tests, a service without a database). */
export class LocalPace implements Pace {
  private next = 0;
  constructor(readonly perSecond: number) {}
  reserve(n: number): Promise<number> {
    const interval = 1000 / this.perSecond;
    const now = Date.now();
    const start = Math.max(this.next, now - (1000 - interval));
    this.next = start + n * interval;
    return Promise.resolve(start);
  }
}

/**
 * The schedule in the service's `outside_call_pace` row: one statement books the slots under the
 * row's lock (nothing held afterwards), so every process of every kind reads the same schedule.
 * Times are the database's clock; the answer is a wait, so the two clocks never meet.
 */
export class SharedPace implements Pace {
  private readonly fallback: LocalPace;
  constructor(
    private readonly db: Db,
    private readonly service: string,
    readonly perSecond: number,
  ) {
    this.fallback = new LocalPace(perSecond);
  }

  async reserve(n: number): Promise<number> {
    const interval = 1000 / this.perSecond;
    try {
      const r = await this.db.query<{ wait_ms: number }>(
        `WITH c AS (SELECT clock_timestamp() AS now)
         INSERT INTO outside_call_pace AS p (service, next_at)
         SELECT $1, c.now + make_interval(secs => $2::float8 / 1000) FROM c
         ON CONFLICT (service) DO UPDATE
            SET next_at = GREATEST(p.next_at, (SELECT now FROM c) - make_interval(secs => $3::float8 / 1000))
                          + make_interval(secs => $2::float8 / 1000)
         RETURNING GREATEST(0, extract(epoch FROM p.next_at - (SELECT now FROM c)) * 1000 - $2::float8)::float8 AS wait_ms`,
        [this.service, n * interval, 1000 - interval],
      );
      return Date.now() + Number(r.rows[0].wait_ms);
    } catch (err) {
      // The outside call matters more than its bookkeeping: pace in process until the store answers.
      log.warn({ service: this.service, err: (err as Error).message }, 'shared rate limit unavailable; pacing in process');
      return this.fallback.reserve(n);
    }
  }
}

interface Waiter {
  grant: () => void;
}

export class RateLimiter {
  /** Waiting calls per caller, in the order the callers are served. */
  private readonly lanes = new Map<string, Waiter[]>();
  private waiting = 0;
  /** Of `waiting`, the background lane's: they do not count against the users' total. */
  private waitingBackground = 0;
  /** Booked slots not handed out yet (epoch ms). */
  private slots: number[] = [];
  private pumping = false;
  private readonly pace: Pace;
  /** Slots booked per trip to the store: a twentieth of a second's worth, so a fast service costs few round trips. */
  private readonly batch: number;

  constructor(
    pace: Pace | number,
    private readonly bounds: QueueBounds = { perCaller: Number.POSITIVE_INFINITY, total: Number.POSITIVE_INFINITY },
  ) {
    this.pace = typeof pace === 'number' ? new LocalPace(pace) : pace;
    this.batch = Math.max(1, Math.floor(this.pace.perSecond / 20));
  }

  /** Calls waiting for a slot (all callers). */
  get queued(): number {
    return this.waiting;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiting) {
        const now = Date.now();
        // A slot long past was booked for calls that left; using it now would exceed the rate.
        this.slots = this.slots.filter((s) => s > now - 1000);
        if (!this.slots.length) {
          const start = await this.pace.reserve(this.batch);
          const interval = 1000 / this.pace.perSecond;
          this.slots = Array.from({ length: this.batch }, (_, i) => start + i * interval);
        }
        const wait = this.slots.shift()! - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (!this.waiting) break;
        // Round robin: the caller at the head of the rotation gets the slot, then goes to the back.
        const [key, lane] = this.lanes.entries().next().value as [string, Waiter[]];
        this.lanes.delete(key);
        const waiter = lane.shift()!;
        if (lane.length) this.lanes.set(key, lane);
        this.waiting--;
        if (key === BACKGROUND) this.waitingBackground--;
        waiter.grant();
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Resolves when a call may be made; throws 429 past the queue bounds, the signal's reason on abort. */
  take(caller: Caller | undefined = currentOutsideCaller()): Promise<void> {
    if (this.pace.perSecond <= 0) return Promise.resolve();
    caller?.signal?.throwIfAborted();
    const key = caller?.key ?? BACKGROUND;
    const lane = this.lanes.get(key) ?? [];
    if (caller) {
      if (lane.length >= this.bounds.perCaller) throw errors.rateLimited(2, this.bounds.messages?.caller);
      if (this.waiting - this.waitingBackground >= this.bounds.total) throw errors.rateLimited(2, this.bounds.messages?.total);
    } else if (this.waitingBackground >= this.bounds.total) {
      throw errors.rateLimited(2, this.bounds.messages?.total);
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
      if (!caller) this.waitingBackground++;
      void this.pump();
    });
  }
}
