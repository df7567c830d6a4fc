/**
 * The loader of /instrumente/qgis: the user's tokens and the address QGIS connects to; for an
 * administrator also every user's tokens (what GET /api/tokens?all=true answers).
 */
import { config } from '../../../domain/config';
import type { Store } from '../../../domain/db/store';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, listTokens } from '../../../domain/auth/service';

export async function qgisAccessPage(store: Store, caller: { userId: string; isAdmin: boolean }) {
  return {
    tokens: await listTokens(store.pool, caller.userId),
    everyUsersTokens: caller.isAdmin ? await listTokens(store.pool, caller.userId, { everyUser: true }) : null,
    ogcUrl: `${config.app.publicUrl.replace(/\/+$/, '')}/ogc`,
    defaultDays: DEFAULT_TOKEN_DAYS,
    maxDays: MAX_TOKEN_DAYS,
  };
}
