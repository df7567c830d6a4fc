/**
 * The loader of /instrumente/qgis: the user's tokens, the address QGIS connects to, and what the
 * ready QGIS project needs (the UATs it can be made for, the authentication entry it names); for
 * an administrator also every user's tokens (what GET /api/tokens?all=true answers).
 */
import { config } from '../../../domain/config';
import type { Store } from '../../../domain/db/store';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, listTokens } from '../../../domain/auth/service';
import { QGIS_AUTHCFG } from '../../../domain/ogc/rules';
import type { OgcService } from '../../../domain/ogc/service';

export async function qgisAccessPage(store: Store, ogc: OgcService, caller: { userId: string; isAdmin: boolean }) {
  return {
    tokens: await listTokens(store.pool, caller.userId),
    everyUsersTokens: caller.isAdmin ? await listTokens(store.pool, caller.userId, { everyUser: true }) : null,
    ogcUrl: `${config.app.publicUrl.replace(/\/+$/, '')}/ogc`,
    defaultDays: DEFAULT_TOKEN_DAYS,
    maxDays: MAX_TOKEN_DAYS,
    projectUats: await ogc.uatsWithParcels(),
    authcfg: QGIS_AUTHCFG,
  };
}
