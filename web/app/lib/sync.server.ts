/**
 * What the "Sincronizare" tab of /parcel-sync loads on the server: the shared portal session
 * (spec 3.1), the store summary (db-summary, layers summary, stats) and the counties, from the
 * landreg service (domain/landreg/service.ts, from the load context), which the landreg routes call.
 */
import type { Caller } from '../../../domain/concurrency';
import type { LandregService, LayerSyncChanges, SessionState } from '../../../domain/landreg/service';

export type { LayerSyncChanges };

/** The same shape as `GET /api/landreg/session`, so the client keeps polling into it. */
export type PortalSessionView = SessionState;

export interface StoreSummaryView {
  stats: Awaited<ReturnType<LandregService['storeStats']>>;
  uats: Awaited<ReturnType<LandregService['dbSummary']>>['uats'];
  layers: Awaited<ReturnType<LandregService['layersSummary']>>['layers'];
}

/** The db-summary part is a heavy read of the whole store (domain/db/heavyRead.ts): capped per user, stopped with the page load. */
export async function storeSummaryView(landreg: LandregService, caller: Caller): Promise<StoreSummaryView> {
  const [stats, summary, layers] = await Promise.all([landreg.storeStats(), landreg.dbSummary(caller), landreg.layersSummary()]);
  return { stats, uats: summary.uats, layers: layers.layers };
}

export async function syncTabData(landreg: LandregService, caller: Caller): Promise<{ session: PortalSessionView; store: StoreSummaryView }> {
  const [session, summary] = await Promise.all([landreg.sessionState(), storeSummaryView(landreg, caller)]);
  return { session, store: summary };
}
