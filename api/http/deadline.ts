/**
 * The one way a request does portal-bound work (the portal is the office's shared account):
 * - under the portal's per-user and global caps (heavyWork.portal; 429 past them);
 * - with an overall deadline: each portal call has its own timeout and retries, so without it a
 *   request could wait for their sum. Past the deadline the caller gets 504 `upstream_timeout`;
 * - its outside calls counted as the caller's in the fair rate limiter, and stopped (queued or in
 *   flight, no more retries) at the deadline or when the client leaves, through the signal of
 *   the outside-caller context (domain/outside/caller.ts) that every outside client reads.
 * The slot is given back when the work has stopped, not when the 504 is answered.
 */
import type { Request, Response } from 'express';
import { AppError } from '../../domain/errors';
import { config } from '../../domain/config';
import { withOutsideCaller } from '../../domain/outside/caller';
import { clientGone } from './download';
import { callerKey, heavyWork } from './rateLimit';

export interface DeadlineOptions {
  ms?: number;
  message?: string;
}

export async function withinDeadline<T>(
  http: { req: Request; res: Response },
  work: () => Promise<T>,
  { ms = config.landreg.apiDeadlineMs, message = 'Portalul de cadastru nu a răspuns în timpul alocat cererii. Încercați din nou.' }: DeadlineOptions = {},
): Promise<T> {
  const key = callerKey(http.req);
  const release = await heavyWork.portal.acquire(key);
  const timedOut = new AppError(504, 'upstream_timeout', message);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(timedOut), ms);
  const gone = clientGone(http.res);
  // Nobody reads this answer; a non-5xx status keeps it out of the error log.
  const onGone = () => stop.abort(new AppError(499, 'client_closed_request', 'Cererea a fost întreruptă de client.'));
  gone.addEventListener('abort', onGone, { once: true });
  const running = withOutsideCaller({ key, signal: stop.signal }, work).finally(() => {
    clearTimeout(timer);
    gone.removeEventListener('abort', onGone);
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
