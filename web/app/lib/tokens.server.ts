/** The loader of /instrumente/qgis: the user's tokens and the address QGIS connects to. */
import { config } from '../../../domain/config';
import type { Store } from '../../../domain/db/store';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS, listTokens } from '../../../domain/auth/service';

export async function qgisAccessPage(store: Store, userId: string) {
  return {
    tokens: await listTokens(store.pool, userId),
    ogcUrl: `${config.app.publicUrl.replace(/\/+$/, '')}/ogc`,
    defaultDays: DEFAULT_TOKEN_DAYS,
    maxDays: MAX_TOKEN_DAYS,
  };
}
