/**
 * Background county refresh (spec 3.1: on the first connection with missing county data) and
 * the demo seed's catalogue step: the UAT catalogue compared with the portal per county and
 * upserted where it differs (domain/landreg/catalogue.ts).
 */
import type { CatalogueRefreshResult } from '../domain/landreg/catalogue';
import { landregActivities as landreg } from './landregShared';

export async function uatCatalogRefresh(opts: { force?: boolean } = {}): Promise<CatalogueRefreshResult> {
  return landreg.refreshUatCatalogue(opts);
}
