/**
 * Sign-in's door (docs/architecture.md "Areas"): the personal access tokens (their routes, the QGIS
 * access page, the token sign-in of /ogc and /tiles), the sessions' housekeeping and the
 * administrators known from their sessions, each on the process's store. Built once per process
 * by `domain/services.ts` `createServices`. Its pure rules (the session context, the viewer rule,
 * the flags, the token limits) are in `rules.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import { recentAdmins } from './admins';
import { createToken, findLiveToken, listTokens, refreshTokenIdentities, revokeToken, tokenHash, type TokenIdentity } from './personalTokens';
import { deleteExpiredSessions } from './sessionCleanup';

export type { TokenIdentity, TokenSummary } from './personalTokens';
/** The session middleware's, which reads sessions on the store's pool (api/auth/session.ts): a refresh's new claims reach the tokens as a sign-in's do. */
export { refreshTokenIdentities };

export function createAuthService({ store }: Pick<AreaDeps, 'store'>) {
  const { pool } = store;
  return {
    createToken: (identity: TokenIdentity, input: { name: string; expiresInDays: number }) => createToken(pool, identity, input),
    listTokens: (userId: string, opts?: { everyUser?: boolean }) => listTokens(pool, userId, opts),
    revokeToken: (caller: { userId: string; isAdmin: boolean }, id: string) => revokeToken(pool, caller, id),
    /** A later sign-in (or session refresh with claims) replaces what the user's tokens sign in as. */
    refreshTokenIdentities: (identity: TokenIdentity) => refreshTokenIdentities(pool, identity),
    /** The live token a presented secret belongs to; null when unknown, revoked or expired. */
    findLiveToken: (secret: string) => findLiveToken(pool, tokenHash(secret)),
    deleteExpiredSessions: () => deleteExpiredSessions(pool),
    recentAdmins: () => recentAdmins(pool),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
