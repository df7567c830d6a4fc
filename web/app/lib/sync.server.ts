/**
 * What the "Sincronizare" tab of /parcel-sync loads on the server: the shared portal session
 * (spec 3.1), the store summary (db-summary, layers summary, stats) and the counties, straight
 * from the domain services the landreg routes use (api/routes/landreg*.ts).
 */
import { getPool } from '../../../domain/db/pool';
import { dbSummary, lastFinishedRuns, layersSummary, storeStats } from '../../../domain/landreg/summary';
import { describeSyncChanges } from '../../../domain/landreg/sync/rules';
import { sessionState, type SessionState } from '../../../domain/landreg/sessionState';
import { runningPortalJobs } from '../../../temporal/jobs';

/** The same shape as `GET /api/landreg/session`, so the client keeps polling into it. */
export type PortalSessionView = SessionState;
export const portalSessionView = () => sessionState({ db: getPool(), runningPortalJobs });

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

export async function lastSyncChanges(siruta: number): Promise<LayerSyncChanges[]> {
  return (await lastFinishedRuns(getPool(), siruta)).map((r) => ({
    layerId: r.layerId,
    finishedAt: r.finishedAt,
    added: r.added,
    removed: r.removed,
    changed: r.changed,
    summary: describeSyncChanges([r]),
  }));
}
