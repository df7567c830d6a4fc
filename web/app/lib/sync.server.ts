/**
 * What the "Sincronizare" tab of /parcel-sync loads on the server: the shared portal session
 * (spec 3.1), the store summary (db-summary, layers summary, stats) and the counties, straight
 * from the domain services the landreg routes use (api/routes/landreg*.ts).
 */
import { getPool } from '../../../domain/db/pool';
import { dbSummary, layersSummary, storeStats } from '../../../domain/landreg/summary';
import { sessionState, type SessionState } from '../../../api/landreg/sessionState';

/** The same shape as `GET /api/landreg/session`, so the client keeps polling into it. */
export type PortalSessionView = SessionState;
export const portalSessionView = sessionState;

export interface StoreSummaryView {
  stats: Awaited<ReturnType<typeof storeStats>>;
  uats: Awaited<ReturnType<typeof dbSummary>>['uats'];
  layers: Awaited<ReturnType<typeof layersSummary>>['layers'];
}

export async function storeSummaryView(): Promise<StoreSummaryView> {
  const db = getPool();
  const [stats, summary, layers] = await Promise.all([storeStats(db), dbSummary(db), layersSummary(db)]);
  return { stats, uats: summary.uats, layers: layers.layers };
}

export async function syncTabData(): Promise<{ session: PortalSessionView; store: StoreSummaryView }> {
  const [session, store] = await Promise.all([portalSessionView(), storeSummaryView()]);
  return { session, store };
}
