/**
 * The steps of one layer sync (spec 4.4 "Sync behaviours" 1, 2, 5; docs/sync.md), each a
 * function the landreg activities call: plan → download pages → apply removals → probe → close.
 * Portal calls go through LandregClient (shared session, rate limit); writes through ./store.
 */
import type { Db } from '../../db/pool';
import type { LandregClient } from '../client';
import { countFeatures, fetchFeaturesByIds, fetchObjectIds, timestampLiteral, uatWhere } from '../portal';
import {
  canSkipIdDiff,
  changedSinceBound,
  diffIds,
  fullSyncReason,
  type FullSyncReason,
  type SyncMode,
} from './rules';
import {
  hasCompletedSync,
  hasProbeCandidates,
  lastUpdatedWatermark,
  localCount,
  localObjectIds,
  markForReenrichment,
  oldestEnriched,
  pendingPage,
  stagePlan,
  storedAmong,
  writePage,
  type PageWriteResult,
} from './store';

/** The parcels layer: the only one enriched, so the only one the documentation probe looks at. */
export const PARCELS_LAYER = 'TERENURI_ACTIVE';

export interface LayerSyncInput {
  runId: string;
  siruta: number;
  layerId: string;
  forceFullSync?: boolean;
}

export interface LayerSyncPlan {
  runId: string;
  mode: SyncMode;
  fullReason: FullSyncReason | null;
  remoteCount: number;
  localCountBefore: number;
  toFetch: number;
  toRemove: number;
  pages: number;
  /** True when the id list was compared (false: the quick count comparison sufficed). */
  idDiff: boolean;
  /**
   * Delta of the parcels layer holding enriched parcels: the documentation probe has something to
   * ask. False spares the workflow a probe activity that would make no portal call, yet take a
   * slot of the landreg queue's activity rate (half a zero-change UAT's activities).
   */
  probe: boolean;
}

export async function planLayerSync(client: LandregClient, db: Db, input: LayerSyncInput): Promise<LayerSyncPlan> {
  const { siruta, layerId } = input;
  const runId = input.runId;
  const where = uatWhere(siruta);
  const remoteCount = await countFeatures(client, layerId, where);
  const localBefore = await localCount(db, siruta, layerId);
  const firstSync = !(await hasCompletedSync(db, siruta, layerId));

  const full = async (reason: FullSyncReason, remoteIds?: number[]): Promise<LayerSyncPlan> => {
    const ids = remoteIds ?? (await fetchObjectIds(client, layerId, where));
    const { removed } = diffIds(ids, await localObjectIds(db, siruta, layerId));
    const pages = await stagePlan(db, runId, { mode: 'full', remoteCount, localCountBefore: localBefore, fetch: ids, remove: removed });
    return { runId, mode: 'full', fullReason: reason, remoteCount, localCountBefore: localBefore, toFetch: ids.length, toRemove: removed.length, pages, idDiff: true, probe: false };
  };

  const early = fullSyncReason({ firstSync: firstSync || localBefore === 0, forceFullSync: !!input.forceFullSync, localCount: localBefore });
  if (early) return full(early);

  // Changes since the newest stored LAST_UPDATED_DTM: an id list, never a feature download.
  const watermark = await lastUpdatedWatermark(db, siruta, layerId);
  const changed =
    watermark === null
      ? []
      : await fetchObjectIds(client, layerId, uatWhere(siruta, `LAST_UPDATED_DTM >= ${timestampLiteral(changedSinceBound(watermark))}`));
  const stored = await storedAmong(db, siruta, layerId, changed);
  const changedNew = changed.filter((id) => !stored.has(id));
  const changedExisting = changed.filter((id) => stored.has(id));

  let added = changedNew;
  let removed: number[] = [];
  let idDiff = false;
  if (!canSkipIdDiff(remoteCount, localBefore, changedNew.length)) {
    const remoteIds = await fetchObjectIds(client, layerId, where);
    const diff = diffIds(remoteIds, await localObjectIds(db, siruta, layerId));
    const reason = fullSyncReason({ firstSync: false, forceFullSync: false, localCount: localBefore, delta: diff.added.length + diff.removed.length });
    if (reason) return full(reason, remoteIds);
    added = diff.added;
    removed = diff.removed;
    idDiff = true;
  }
  const removedSet = new Set(removed);
  const fetch = [...added, ...changedExisting.filter((id) => !removedSet.has(id))];
  const pages = await stagePlan(db, runId, { mode: 'delta', remoteCount, localCountBefore: localBefore, fetch, remove: removed });
  const probe = layerId === PARCELS_LAYER && (await hasProbeCandidates(db, siruta, layerId));
  return { runId, mode: 'delta', fullReason: null, remoteCount, localCountBefore: localBefore, toFetch: fetch.length, toRemove: removed.length, pages, idDiff, probe };
}

/**
 * Downloads the staged pages [fromPage, toPage) and writes each one, calling `onWritten` after
 * each page's commit (a page already written is a no-op). Pipelined: the next page's request
 * goes out while this page is being written, so the portal and the store work at the same time,
 * yet there is never more than one request of this call in flight (the politeness bound of
 * docs/sync.md counts one per download activity).
 */
export async function downloadPages(
  client: LandregClient,
  db: Db,
  a: { runId: string; siruta: number; layerId: string; fromPage: number; toPage: number },
  onWritten: (page: number, result: PageWriteResult) => void,
): Promise<void> {
  const fetchPage = async (page: number) => {
    const ids = await pendingPage(db, a.runId, page);
    return ids.length === 0 ? null : fetchFeaturesByIds(client, a.layerId, uatWhere(a.siruta), ids);
  };
  let next = a.fromPage < a.toPage ? fetchPage(a.fromPage) : null;
  try {
    for (let page = a.fromPage; page < a.toPage; page++) {
      const features = await next;
      next = page + 1 < a.toPage ? fetchPage(page + 1) : null;
      const result = features === null ? { written: 0, inserted: 0, reenrichMarked: 0, changed: 0 } : await writePage(db, { runId: a.runId, siruta: a.siruta, layerId: a.layerId, page, features });
      onWritten(page, result);
    }
  } finally {
    // A write that failed leaves the prefetched page unread: its outcome no longer matters.
    next?.catch(() => undefined);
  }
}

/**
 * Spec 4.4 SB2 rolling probe: the oldest-enriched parcels are asked for their current VALID_FROM
 * (attributes only, no geometry); a changed one is marked for re-enrichment. No enriched parcel,
 * no portal call.
 */
export async function probeEnrichedParcels(
  client: LandregClient,
  db: Db,
  a: { runId: string; siruta: number; layerId: string },
): Promise<{ probed: number; marked: number }> {
  if (a.layerId !== PARCELS_LAYER) return { probed: 0, marked: 0 };
  const sample = await oldestEnriched(db, a.siruta, a.layerId);
  if (sample.length === 0) return { probed: 0, marked: 0 };
  const remote = await fetchFeaturesByIds(
    client,
    a.layerId,
    uatWhere(a.siruta),
    sample.map((s) => s.objectId),
    { outFields: 'OBJECTID,VALID_FROM', returnGeometry: false },
  );
  const remoteValidFrom = new Map(remote.map((f) => [Number(f.attributes.OBJECTID), f.attributes.VALID_FROM]));
  const changed = sample
    .filter((s) => {
      const v = remoteValidFrom.get(s.objectId);
      return typeof v === 'number' && v !== (s.validFrom ? s.validFrom.getTime() : null);
    })
    .map((s) => s.objectId);
  const marked = await markForReenrichment(db, { ...a, objectIds: changed });
  return { probed: sample.length, marked };
}
