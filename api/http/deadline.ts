/**
 * The API's side of the one door of portal-bound work (domain/outside/door.ts): the caller is the
 * request's user (or address), and it stops when the client leaves (`clientGone`). Past the caps
 * 429 `rate_limited` with Retry-After; past the deadline 504 `upstream_timeout`.
 */
import type { Request, Response } from 'express';
import { throughPortalDoor, type DoorOptions } from '../../domain/outside/service';
import { clientGone } from './download';
import { callerKey } from './rateLimit';

export function withinDeadline<T>(http: { req: Request; res: Response }, work: () => Promise<T>, opts: DoorOptions = {}): Promise<T> {
  return throughPortalDoor({ key: callerKey(http.req), signal: clientGone(http.res) }, work, opts);
}
