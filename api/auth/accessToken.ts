/**
 * The caller's access token for an outbound call on their behalf (the central API, spec 5.5),
 * fresh enough to be forwarded. The session middleware already refreshed it when it was past its
 * refresh moment; this refreshes again when the token expires within the forwarding margin
 * (a request that started just before that moment), and after the upstream refused it. Every
 * refresh goes through refreshShared: one exchange per refresh token however many requests ask.
 */
import type pg from 'pg';
import { config } from '../../domain/config';
import { AppError } from '../../domain/errors';
import type { TokenSource } from '../../domain/central/service';
import { loadSessionCached, type StoredSession } from './sessionStore';
import { refreshShared } from './session';
import { DEV_BYPASS_SESSION_ID, type SessionContext } from '../../domain/auth/rules';

const signInAgain = () =>
  new AppError(401, 'unauthorized', 'Sesiunea de autentificare a expirat. Autentificați-vă din nou.', {
    extra: { sessionError: 'RefreshAccessTokenError' },
  });

async function refreshed(db: pg.Pool, sessionId: string, data: StoredSession): Promise<StoredSession> {
  if (!data.tokens.refreshToken) throw signInAgain();
  const next = await refreshShared(db, sessionId, data.tokens.refreshToken);
  if (!next || next.error) throw signInAgain();
  return next;
}

/** A TokenSource (domain/central/service.ts) for this signed-in caller; `db` holds its session. */
export function callerTokenSource(db: pg.Pool, auth: SessionContext): TokenSource {
  return async (rejected?: string) => {
    if (auth.error) throw signInAgain();
    // The development bypass has no identity provider behind it: its empty token is what it has.
    if (auth.sessionId === DEV_BYPASS_SESSION_ID) return auth.accessToken;
    const row = await loadSessionCached(db, auth.sessionId);
    if (!row) throw new AppError(401, 'unauthorized', 'Autentificare necesară.');
    let data = row.data;
    if (data.error) throw signInAgain();
    if (rejected !== undefined) {
      // Someone else already replaced the refused token: use theirs.
      if (data.tokens.accessToken !== rejected) return data.tokens.accessToken;
      data = await refreshed(db, auth.sessionId, data);
    } else if (data.tokens.accessTokenExpiresAt - Date.now() < config.central.refreshMarginMs) {
      data = await refreshed(db, auth.sessionId, data);
    }
    return data.tokens.accessToken;
  };
}
