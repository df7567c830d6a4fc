/**
 * Sign-in and sessions (spec section 5, CONTRACT.md section 2). api/app.ts mounts
 * `sessionMiddleware(pool)` for every request, `authRouter(store, services.auth, services.notifications)`
 * at /auth and the API route, all on the app's store; the server mounts `pageGuard` before the Remix UI.
 */
export { sessionMiddleware, sessionOfCookie, devStubContext } from './session';
export { sameOriginWrites, isSameOriginRequest } from './sameOrigin';
export { pageGuard, isGuardedPath } from './pageGuard';
export { authRouter, registerAuthApiRoutes } from './routes';
export { requireBearer, bearerToken } from './bearer';
export { requireAdmin, ADMIN_ONLY_MESSAGE } from './guards';
export { SESSION_COOKIE } from './cookies';
export type { SessionContext, SessionUser, Company, EnrichmentScope } from '../../domain/auth/rules';
