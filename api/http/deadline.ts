/**
 * The API's side of the one door of portal-bound work (domain/outside/door.ts): the caller is the
 * request's user (or address), and it stops when the client leaves (`clientGone`). Past the caps
 * 429 `rate_limited` with Retry-After; past the deadline 504 `upstream_timeout`.
 */
import type { Request, RequestHandler, Response } from 'express';
import { throughPortalDoor, withOutsideCaller, type DoorOptions } from '../../domain/outside/service';
import type { Caller } from '../../domain/concurrency';
import { clientGone } from './download';
import { callerKey } from './rateLimit';

/** The request's caller as the doors of heavy work take it: its user (or address), and a signal that aborts when the client leaves. */
export function requestCaller(http: { req: Request; res: Response }): Required<Caller> {
  return { key: callerKey(http.req), signal: clientGone(http.res) };
}

export function withinDeadline<T>(http: { req: Request; res: Response }, work: () => Promise<T>, opts: DoorOptions = {}): Promise<T> {
  return throughPortalDoor(requestCaller(http), work, opts);
}

/**
 * The routes of a service that bounds its own work (the central API, called with the caller's own
 * token): every outside call a request under it makes is the caller's, in its own lane of the fair
 * rate limiter (429 past its queue bound) and stopped when the client leaves, without the portal's
 * caps (a central user's map panel asks four or five things at once). Without it those calls had
 * no caller: every user's shared the background lane, and ran on after their client had gone.
 */
export const outsideCallerOfRequest: RequestHandler = (req, res, next) => withOutsideCaller(requestCaller({ req, res }), next);
