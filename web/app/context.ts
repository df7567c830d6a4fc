/**
 * What Express hands to every Remix loader and action (api/web.ts getLoadContext): the session
 * the auth middleware attached to the request (undefined only when no session exists, which the
 * page guard normally prevents), the store the server built at start-up, the same the API's
 * routers use, and every area's service (which starts the delivery of the mails it queues).
 */
import type { SessionContext } from '../../domain/auth/rules';
import type { Store } from '../../domain/db/store';
import type { Services } from '../../domain/services';
import type { PageRefusal } from '../../domain/limits/pageRefusal';

export type { SessionContext, Store };

declare module '@remix-run/server-runtime' {
  interface AppLoadContext {
    auth?: SessionContext;
    store: Store;
    /** Every area's service, the same objects the API's routers call (domain/services.ts). */
    services: Services;
    /** Past the caller's per-user request limit (api/http/rateLimit.ts pageRateLimit): requireSession refuses. */
    refused?: PageRefusal;
  }
}

declare module '@remix-run/node' {
  // Single fetch (future.v3_singleFetch) types loaders' data the way the runtime serialises it.
  interface Future {
    v3_singleFetch: true;
  }
}
