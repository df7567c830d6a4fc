/**
 * The outside area's door (docs/architecture.md "Areas"): how every outside system is called.
 * Unlike an area's service object these are stateless functions taking their target and options
 * explicitly, because they are called from deep inside the other areas' clients (landreg, cfportal,
 * central, pdf, the registry's status authority, the AI providers), which hold no services:
 * - the transport (`send`, `outsideFetch`): one HTTP exchange with a timeout and the caller's signals;
 * - the call (`outsideCall`): retries, the fair rate limiter, the CONTRACT's error bodies;
 * - the portal door (`throughPortalDoor`, `portalSlots`): the caps and deadline of portal-bound work,
 *   which the API (api/http/deadline.ts) and the pages (web/app/lib/portal.server.ts) both pass.
 */
import { throughPortalDoor, type DoorOptions } from './door';
import { callerKeyOf } from './rules';

export { callerGone, outsideCall, outsideError, outsideMessage, transportFailure, type OutsideCallOptions, type OutsideSession } from './call';
export { portalSlots, throughPortalDoor, type DoorOptions } from './door';
export { callerKeyOf } from './rules';
export { outsideFetch, send, setCookies, type OutsideTarget } from './transport';
export { withOutsideCaller } from './caller';

/**
 * The door's object for the pages (web/app/lib/portal.server.ts), which reach areas only through
 * the load context: the same caps and deadline `api/http/deadline.ts` applies to the API's routes.
 */
export function createOutsideService() {
  return {
    /** Runs portal-bound work of the signed-in user under the per-user and global caps, stopped when `signal` aborts. */
    portalDoor: <T>(userId: string, signal: AbortSignal, work: () => Promise<T>, opts: DoorOptions = {}) =>
      throughPortalDoor({ key: callerKeyOf(userId), signal }, work, opts),
  };
}

export type OutsideService = ReturnType<typeof createOutsideService>;
