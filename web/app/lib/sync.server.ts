/**
 * What the "Sincronizare" tab of /parcel-sync loads on the server: the shared portal session
 * (spec 3.1), the store summary (db-summary, layers summary, stats) and the counties, straight
 * from the domain services the landreg routes use (api/routes/landreg*.ts).
 */
import type { Store } from '../../../domain/db/store';
import { dbSummary, lastFinishedRuns, layersSummary, storeStats } from '../../../domain/landreg/summary';
import { describeSyncChanges } from '../../../domain/landreg/sync/rules';
import { sessionState, type SessionState } from '../../../domain/landreg/sessionState';
import { runningPortalJobs } from '../../../temporal/jobs';

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

/** One layer's last finished sync, as the UAT dashboard shows it. */
export interface LayerSyncChanges {
  layerId: string;
  finishedAt: string | null;
  added: number;
  removed: number;
  changed: number;
  /** "parcele: 3 adăugate, 2 eliminate, 4 modificate" (domain/landreg/sync/rules.ts). */
  summary: string;
}

export async function lastSyncChanges(store: Store, siruta: number): Promise<LayerSyncChanges[]> {
  return (await lastFinishedRuns(store.pool, siruta)).map((r) => ({
    layerId: r.layerId,
    finishedAt: r.finishedAt,
    added: r.added,
    removed: r.removed,
    changed: r.changed,
    summary: describeSyncChanges([r]),
  }));
}
