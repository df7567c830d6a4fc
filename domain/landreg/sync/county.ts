/**
 * The zero-change part of a county refresh (issue 32 item 3, docs/sync.md "Jobs"): which of a
 * county's UATs the portal shows unchanged since their last sync, decided with a few queries for
 * the whole county instead of a plan per UAT and layer, and their sync runs recorded at once.
 * A UAT and layer is unchanged exactly when its own layer sync would plan nothing: the one rule
 * is rules.ts `layerUnchanged`. Every other UAT goes through its own `uatSync` as before.
 */
import type { Db } from '../../db/pool';
import type { LandregClient } from '../client';
import { countByUat, timestampLiteral } from '../portal';
import { changedSinceBound, layerUnchanged } from './rules';
import { PARCELS_LAYER } from './engine';
import { WATERMARK_SQL, type SyncTrigger } from './store';
import { notifyFeatureChanges } from '../../notifications/service';
import type { StartDelivery } from '../../areaDeps';

export interface CountyRefreshInput {
  /** The county job's workflow id: the runs it records name it, and a retry records none twice. */
  workflowId: string;
  trigger: SyncTrigger;
  sirutas: readonly number[];
  layers: readonly string[];
}

interface StoredLayerState {
  count: number;
  /** Newest stored LAST_UPDATED_DTM (epoch ms); null when no feature carries one. */
  watermark: number | null;
  /** The layer was synced to the end before (else the next sync is a first, full one). */
  completed: boolean;
  /** The documentation probe has an enriched parcel to ask about (the per-UAT sync runs it). */
  probe: boolean;
}

/** What the store holds of every UAT and layer of the county, in one statement. */
async function storedState(db: Db, sirutas: readonly number[], layers: readonly string[]): Promise<Map<string, StoredLayerState>> {
  const r = await db.query<{ siruta: number; layer_id: string; n: number; wm: string | null; probe: boolean; completed: boolean }>(
    `WITH f AS (
       SELECT siruta, layer_id, count(*)::int AS n,
              ${WATERMARK_SQL} AS wm,
              bool_or(layer_id = $3 AND enriched_at IS NOT NULL AND NOT reenrich_marked) AS probe
         FROM gis_features
        WHERE siruta = ANY($1::int[]) AND layer_id = ANY($2::text[]) AND object_id >= 0
        GROUP BY siruta, layer_id)
     SELECT f.siruta, f.layer_id, f.n, f.wm::text AS wm, f.probe,
            EXISTS (SELECT 1 FROM gis_sync_runs r WHERE r.siruta = f.siruta AND r.layer_id = f.layer_id AND r.status = 'done') AS completed
       FROM f`,
    [sirutas, layers, PARCELS_LAYER],
  );
  return new Map(r.rows.map((x) => [`${x.siruta}/${x.layer_id}`, { count: x.n, watermark: x.wm === null ? null : Number(x.wm), completed: x.completed, probe: x.probe }]));
}

/**
 * The county's unchanged UATs (all of `layers` unchanged), in the order given; their runs are
 * recorded as done deltas with nothing to do, under the county's workflow id. Per layer, two
 * portal queries for the whole county: the counts grouped by UAT, and the changes since each
 * UAT's own watermark, counted per UAT.
 */
export async function refreshUnchangedUats(client: LandregClient, db: Db, deliver: StartDelivery, a: CountyRefreshInput): Promise<{ unchanged: number[] }> {
  const stored = await storedState(db, a.sirutas, a.layers);
  const state = (siruta: number, layerId: string) => stored.get(`${siruta}/${layerId}`);
  // rules.ts layerUnchanged, the portal's answers asked one at a time for the whole county.
  const unchanged = (st: StoredLayerState | undefined, portal: { remoteCount?: number; changedSinceWatermark?: number } = {}) =>
    st !== undefined &&
    layerUnchanged({ completed: st.completed, localCount: st.count, probe: st.probe, remoteCount: portal.remoteCount ?? st.count, changedSinceWatermark: portal.changedSinceWatermark ?? 0 });
  let candidates = a.sirutas.filter((s) => a.layers.every((l) => unchanged(state(s, l))));
  for (const layerId of a.layers) {
    if (candidates.length === 0) break;
    const inCounty = `ADMIN_UNIT_ID IN (${candidates.map((s) => Math.trunc(s)).join(',')})`;
    const remote = await countByUat(client, layerId, inCounty);
    candidates = candidates.filter((s) => unchanged(state(s, layerId), { remoteCount: remote.get(s) ?? 0 }));
    // Each UAT's own change bound, as its layer sync would ask (a UAT without one: the count decides).
    const since = candidates
      .filter((s) => state(s, layerId)!.watermark !== null)
      .map((s) => `(ADMIN_UNIT_ID = ${Math.trunc(s)} AND LAST_UPDATED_DTM >= ${timestampLiteral(changedSinceBound(state(s, layerId)!.watermark!))})`);
    if (since.length > 0) {
      const changed = await countByUat(client, layerId, `ADMIN_UNIT_ID IN (${candidates.join(',')}) AND (${since.join(' OR ')})`);
      candidates = candidates.filter((s) => unchanged(state(s, layerId), { remoteCount: remote.get(s) ?? 0, changedSinceWatermark: changed.get(s) ?? 0 }));
    }
  }
  if (candidates.length > 0) {
    const rows = candidates.flatMap((s) => a.layers.map((l) => ({ siruta: s, layerId: l, n: state(s, l)!.count })));
    await db.query(
      `INSERT INTO gis_sync_runs (siruta, layer_id, mode, trigger, status, workflow_id, remote_count, local_count_before, pages, finished_at)
       SELECT u.siruta, u.layer_id, 'delta', $1, 'done', $2, u.n, u.n, 0, now()
         FROM unnest($3::int[], $4::text[], $5::int[]) AS u(siruta, layer_id, n)
        WHERE NOT EXISTS (SELECT 1 FROM gis_sync_runs r WHERE r.workflow_id = $2 AND r.siruta = u.siruta AND r.layer_id = u.layer_id)`,
      [a.trigger, a.workflowId, rows.map((r) => r.siruta), rows.map((r) => r.layerId), rows.map((r) => r.n)],
    );
    // As a done run's close does (store.ts closeSyncRun): history rows an earlier failed run left unnotified.
    for (const s of candidates) await notifyFeatureChanges(db, deliver, { siruta: s });
  }
  return { unchanged: candidates };
}
