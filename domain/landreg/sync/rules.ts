/**
 * The pure rules of a layer sync (spec 4.4 "Sync behaviours" 1, 2; spec 8 limits). No I/O:
 * table-driven tests in test/unit/landreg-sync-rules.test.ts.
 */
import { layerNoun, layerNounDefinite } from '../../text/labels';

/** Spec 8 "delta threshold": a delta above 50% of the stored features turns into a full sync. */
export const DELTA_FULL_SYNC_RATIO = 0.5;

/** Spec 8 "rolling documentation probe": the 200 oldest-enriched parcels are re-checked each delta sync. */
export const ENRICHMENT_PROBE_SIZE = 200;

/** ArcGIS page size of the portal: ids are downloaded 1000 to a page. */
export const SYNC_PAGE_SIZE = 1000;

export type SyncMode = 'delta' | 'full';

export type FullSyncReason = 'first_sync' | 'forced' | 'delta_over_threshold';

export interface IdDiff {
  added: number[];
  removed: number[];
}

/** Remote ids vs stored ids: what to download and what to delete. */
export function diffIds(remote: readonly number[], local: readonly number[]): IdDiff {
  const localSet = new Set(local);
  const remoteSet = new Set(remote);
  return {
    added: [...remoteSet].filter((id) => !localSet.has(id)).sort((a, b) => a - b),
    removed: [...localSet].filter((id) => !remoteSet.has(id)).sort((a, b) => a - b),
  };
}

/** Spec 4.4 SB1: full on first sync, on forceFullSync, or when the delta exceeds 50%. */
export function fullSyncReason(opts: {
  firstSync: boolean;
  forceFullSync: boolean;
  localCount: number;
  delta?: number;
}): FullSyncReason | null {
  if (opts.firstSync) return 'first_sync';
  if (opts.forceFullSync) return 'forced';
  if (opts.delta !== undefined && opts.delta > DELTA_FULL_SYNC_RATIO * opts.localCount) return 'delta_over_threshold';
  return null;
}

/**
 * Spec 4.4 SB2: the quick count comparison. When the remote count equals the stored count plus
 * the new ids already known from the change query, nothing was removed and nothing else was
 * added, so the full id list need not be fetched.
 */
export function canSkipIdDiff(remoteCount: number, localCount: number, knownNew: number): boolean {
  return remoteCount === localCount + knownNew;
}

/**
 * Whether a layer sync of one UAT would plan nothing (engine.ts planLayerSync: a delta of no
 * pages and no removals, and no documentation probe): synced to the end before with features
 * stored (else a first, full sync), no probe candidate, nothing on the portal updated since the
 * stored watermark, and the portal's count equal to the store's (nothing added or removed). The
 * county refresh (county.ts) decides a whole county's UATs with it, the portal's answers asked
 * one condition at a time for the county; until an answer is in, pass the store's own value.
 */
export function layerUnchanged(s: { completed: boolean; localCount: number; probe: boolean; remoteCount: number; changedSinceWatermark: number }): boolean {
  const first = fullSyncReason({ firstSync: !s.completed || s.localCount === 0, forceFullSync: false, localCount: s.localCount });
  return first === null && !s.probe && s.changedSinceWatermark === 0 && canSkipIdDiff(s.remoteCount, s.localCount, 0);
}

/**
 * The change query's lower bound: strictly after the newest LAST_UPDATED_DTM in the store. The
 * portal's timestamp literals have whole seconds, so round up to the next second.
 */
export function changedSinceBound(watermarkMs: number): number {
  return Math.floor(watermarkMs / 1000) * 1000 + 1000;
}

/** Splits sorted ids into pages numbered from 0. */
export function pageOf(index: number, pageSize = SYNC_PAGE_SIZE): number {
  return Math.floor(index / pageSize);
}

/** Contiguous page ranges [from, to) of at most `perChunk` pages: one download activity each. */
export function pageChunks(pages: number, perChunk: number): Array<{ fromPage: number; toPage: number }> {
  const out: Array<{ fromPage: number; toPage: number }> = [];
  const step = Math.max(1, perChunk);
  for (let p = 0; p < pages; p += step) out.push({ fromPage: p, toPage: Math.min(pages, p + step) });
  return out;
}

/** "parcele", "clădiri"…: a layer's name as a user reads it (domain/text/labels.ts). */
export const layerWord = layerNoun;

/** "Se sincronizează parcelele…" rather than the portal's id `TERENURI_ACTIVE` (issue 30). */
export const layerName = layerNounDefinite;

/** Counts of what a sync changed in one layer (a GisSyncRun has them all). */
export interface LayerChangeCounts {
  layerId: string;
  added: number;
  removed: number;
  changed: number;
}

/** "1 adăugată" / "3 adăugate": the feminine of the layer's words (parcele, clădiri). */
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * What a finished sync changed, by layer, in Romanian: "parcele: 3 adăugate, 2 eliminate,
 * 4 modificate; clădiri: nicio schimbare" (issue 30: the progress, the result and the notification
 * say it). Layers with the same counts are not merged: each is named.
 */
export function describeSyncChanges(runs: readonly LayerChangeCounts[]): string {
  if (runs.length === 0) return 'nicio schimbare';
  return runs
    .map((r) => {
      const word = layerNoun(r.layerId);
      const parts = [
        r.added > 0 ? count(r.added, 'adăugată', 'adăugate') : null,
        r.removed > 0 ? count(r.removed, 'eliminată', 'eliminate') : null,
        r.changed > 0 ? count(r.changed, 'modificată', 'modificate') : null,
      ].filter((p): p is string => p !== null);
      return `${word}: ${parts.length > 0 ? parts.join(', ') : 'nicio schimbare'}`;
    })
    .join('; ');
}

/** The counts of many runs summed per layer, in the order the layers first appear. */
export function changesByLayer(runs: readonly LayerChangeCounts[]): LayerChangeCounts[] {
  const out = new Map<string, LayerChangeCounts>();
  for (const r of runs) {
    const sum = out.get(r.layerId) ?? { layerId: r.layerId, added: 0, removed: 0, changed: 0 };
    out.set(r.layerId, { layerId: r.layerId, added: sum.added + r.added, removed: sum.removed + r.removed, changed: sum.changed + r.changed });
  }
  return [...out.values()];
}
