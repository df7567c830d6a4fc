/**
 * What the "Sincronizare" tab of /parcel-sync loads on the server: the shared portal session
 * (spec 3.1), the store summary (db-summary, layers summary, stats) and the counties, from the
 * landreg store's application service (domain/landreg/service.ts), which the landreg routes call.
 */
import type { Store } from '../../../domain/db/store';
import { dbSummary, lastSyncChanges as readLastSyncChanges, layersSummary, sessionState, storeStats } from '../../../domain/landreg/service';
import type { SessionState } from '../../../domain/landreg/sessionState';
import type { LayerSyncChanges } from '../../../domain/landreg/summary';
import { runningPortalJobs } from '../../../temporal/jobs';

export type { LayerSyncChanges };

/** The same shape as `GET /api/landreg/session`, so the client keeps polling into it. */
export type PortalSessionView = SessionState;
export const portalSessionView = (store: Store) => sessionState({ db: store.pool, runningPortalJobs });

export interface StoreSummaryView {
  stats: Awaited<ReturnType<typeof storeStats>>;
  uats: Awaited<ReturnType<typeof dbSummary>>['uats'];
  layers: Awaited<ReturnType<typeof layersSummary>>['layers'];
}

export async function storeSummaryView(store: Store): Promise<StoreSummaryView> {
  const db = store.pool;
  const [stats, summary, layers] = await Promise.all([storeStats(db), dbSummary(db), layersSummary(db)]);
  return { stats, uats: summary.uats, layers: layers.layers };
}

export async function syncTabData(store: Store): Promise<{ session: PortalSessionView; store: StoreSummaryView }> {
  const [session, summary] = await Promise.all([portalSessionView(store), storeSummaryView(store)]);
  return { session, store: summary };
}

/** One layer's last finished sync per layer of a UAT, as the UAT dashboard shows it. */
export const lastSyncChanges = (store: Store, siruta: number) => readLastSyncChanges(store.pool, siruta);
