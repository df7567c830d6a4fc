/**
 * What the "Sincronizare" tab of /parcel-sync loads on the server: the shared portal session
 * (spec 3.1), the store summary (a page of its UATs, layers summary, stats) and the counties, from the
 * landreg service (domain/landreg/service.ts, from the load context), which the landreg routes call.
 */
import type { LandregService, LayerSyncChanges, SessionState } from '../../../domain/landreg/service';

export type { LayerSyncChanges };

/** The same shape as `GET /api/landreg/session`, so the client keeps polling into it. */
export type PortalSessionView = SessionState;

export interface StoreSummaryView {
  stats: Awaited<ReturnType<LandregService['storeStats']>>;
  /** A page of the store's UATs (`?uatQ=`, `?uatPage=`), not the whole store: db-summary's rows are every UAT of it. */
  uats: Awaited<ReturnType<LandregService['storeUatsPage']>>;
  layers: Awaited<ReturnType<LandregService['layersSummary']>>['layers'];
}

export async function storeSummaryView(landreg: LandregService, uats: { q?: string; page?: number }): Promise<StoreSummaryView> {
  const [stats, page, layers] = await Promise.all([landreg.storeStats(), landreg.storeUatsPage(uats), landreg.layersSummary()]);
  return { stats, uats: page, layers: layers.layers };
}

export async function syncTabData(landreg: LandregService, uats: { q?: string; page?: number }): Promise<{ session: PortalSessionView; store: StoreSummaryView }> {
  const [session, summary] = await Promise.all([landreg.sessionState(), storeSummaryView(landreg, uats)]);
  return { session, store: summary };
}
