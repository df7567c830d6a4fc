/**
 * The pages' side of the one door of portal-bound work (domain/outside/door.ts): a loader or
 * action that reaches the portal runs its work here, under the same per-user and global caps and
 * deadline as the API routes, counted as the signed-in user's, and stopped as soon as the browser
 * abandons the page load (Remix aborts `request.signal` when the client closes the connection).
 */
import type { AppLoadContext } from '@remix-run/node';
import type { SessionContext } from '../../../domain/auth/rules';
import { AppError } from '../../../domain/errors';
import type { Caller } from '../../../domain/concurrency';
import { callerKeyOf } from '../../../domain/outside/rules';
import type { DoorOptions } from '../../../domain/outside/service';

/** The page request's caller as the doors of heavy work take it (the same key as the API's for this user): a UAT-wide read (domain/db/heavyRead.ts) stops with the page load. */
export function pageCaller(request: Request, auth: SessionContext): Caller {
  return { key: callerKeyOf(auth.user.id), signal: request.signal };
}

export function withinPortalDoor<T>(
  { services }: Pick<AppLoadContext, 'services'>,
  request: Request,
  auth: SessionContext,
  work: () => Promise<T>,
  opts: DoorOptions = {},
): Promise<T> {
  return services.outside.portalDoor(auth.user.id, request.signal, work, opts);
}

/**
 * A refusal past the caps, as the page answers it: the API's 429 status and Retry-After (the
 * route passes the header on with `retryAfterHeaders`).
 */
export function refusalInit(err: unknown): ResponseInit | undefined {
  if (!(err instanceof AppError) || err.status !== 429) return undefined;
  return { status: 429, headers: err.headers };
}

/** A route's `headers` export: a document refused past the caps carries its loader's or action's Retry-After. */
export function retryAfterHeaders({ loaderHeaders, actionHeaders }: { loaderHeaders: Headers; actionHeaders: Headers }): HeadersInit {
  const retryAfter = actionHeaders.get('Retry-After') ?? loaderHeaders.get('Retry-After');
  return retryAfter ? { 'Retry-After': retryAfter } : {};
}
