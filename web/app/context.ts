/**
 * What Express hands to every Remix loader and action (api/web.ts getLoadContext): the session
 * the auth middleware attached to the request. Undefined only when no session exists, which the
 * page guard normally prevents.
 */
import type { SessionContext } from '../../domain/auth/sessionContext';

export type { SessionContext };

declare module '@remix-run/server-runtime' {
  interface AppLoadContext {
    auth?: SessionContext;
  }
}

declare module '@remix-run/node' {
  // Single fetch (future.v3_singleFetch) types loaders' data the way the runtime serialises it.
  interface Future {
    v3_singleFetch: true;
  }
}
