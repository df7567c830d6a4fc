/**
 * The one door of portal-bound work (the land-registry portal is the office's shared account),
 * whoever starts it: an API route (`api/http/deadline.ts` `withinDeadline`), a page loader or
 * action (`web/app/lib/portal.server.ts` `withinPortalDoor`). Through it the work runs
 * - under the portal's per-user and global caps (`portalSlots`; 429 `rate_limited` past them,
 *   never a queue), so one user's flood is refused instead of holding the portal;
 * - with an overall deadline: each portal call has its own timeout and retries, so without it a
 *   caller could wait for their sum. Past the deadline the work fails with 504 `upstream_timeout`;
 * - its outside calls counted as the caller's in the fair rate limiter, and stopped (queued or in
 *   flight, no more retries) at the deadline or when the caller's signal aborts (the client left),
 *   through the outside-caller context (./caller.ts) that every outside client reads.
 * Calls that pass no door have no caller: they are the background lane (./rateLimiter.ts), which
 * is for workflow activities only.
 * The slot is given back when the work has stopped, not when the 504 is answered.
 */
import { config } from '../config';
import { WorkSlots, type Caller } from '../concurrency';
import { AppError, errors } from '../errors';
import { withOutsideCaller } from './caller';

/** Portal-bound work in flight: a global and a per-caller cap (CONTRACT.md section 6 "heavy routes"). */
export const portalSlots = new WorkSlots({
  kind: 'portal',
  global: () => config.limits.portal.global,
  perUser: () => config.limits.portal.perUser,
  retryAfterSeconds: 5,
  messages: {
    user: 'Aveți deja prea multe căutări pe portal în lucru; așteptați să se termine, apoi reîncercați.',
    global: 'Se procesează deja prea multe cereri către portalul de cadastru în acest moment; reîncercați în câteva secunde.',
  },
});

export interface DoorOptions {
  ms?: number;
  message?: string;
}

export async function throughPortalDoor<T>(
  caller: Caller,
  work: () => Promise<T>,
  { ms = config.landreg.apiDeadlineMs, message = 'Portalul de cadastru nu a răspuns în timpul alocat cererii. Încercați din nou.' }: DoorOptions = {},
): Promise<T> {
  if (caller.signal?.aborted) throw errors.clientClosed();
  const release = await portalSlots.acquire(caller.key, caller.signal);
  if (caller.signal?.aborted) {
    release();
    throw errors.clientClosed();
  }
  const timedOut = new AppError(504, 'upstream_timeout', message);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(timedOut), ms);
  const onGone = () => stop.abort(errors.clientClosed());
  caller.signal?.addEventListener('abort', onGone, { once: true });
  const running = withOutsideCaller({ key: caller.key, signal: stop.signal }, work).finally(() => {
    clearTimeout(timer);
    caller.signal?.removeEventListener('abort', onGone);
    release();
  });
  const limit = new Promise<never>((_, reject) => {
    if (stop.signal.aborted) reject(stop.signal.reason);
    stop.signal.addEventListener('abort', () => reject(stop.signal.reason), { once: true });
  });
  // The work fails soon after the deadline answered (its calls are aborted): nobody awaits it then.
  running.catch(() => undefined);
  limit.catch(() => undefined);
  return Promise.race([running, limit]);
}
