/**
 * Read-only views of the synced store for the landreg read routes (spec 4.4): sync status,
 * stats, per-UAT summary, per-layer counts, the feature list and the local half of debug-fields.
 */
import type { Db } from '../db/pool';
import { LAYER_COUNTS_SQL } from '../store/holdings';
import { escapeLike } from '../text/like';
import { describeSyncChanges } from './sync/rules';
import { toSyncRun, type GisSyncRun } from './sync/store';

/** `GET /sync-status`: per UAT and layer, the latest run and the last successful one. */
export async function syncStatus(db: Db, siruta?: number): Promise<{ items: Array<{ siruta: number; uatName: string | null; layerId: string; featureCount: number; lastRun: GisSyncRun; lastSuccessAt: string | null }> }> {
  const r = await db.query(
    // The latest run of each UAT and layer first, then its counts: counted per run row, a UAT's
    // features were counted once for every sync it ever had (7 runs of the bench UAT: 250 ms).
    `SELECT r.*, u.name AS uat_name,
            (SELECT max(finished_at) FROM gis_sync_runs d WHERE d.siruta = r.siruta AND d.layer_id = r.layer_id AND d.status = 'done') AS last_success,
            coalesce((SELECT c.total FROM ${LAYER_COUNTS_SQL} c WHERE c.siruta = r.siruta AND c.layer_id = r.layer_id), 0)::int AS feature_count
       FROM (SELECT DISTINCT ON (siruta, layer_id) * FROM gis_sync_runs
              WHERE ($1::int IS NULL OR siruta = $1)
              ORDER BY siruta, layer_id, started_at DESC) r
       LEFT JOIN gis_uats u ON u.siruta = r.siruta
      ORDER BY r.siruta, r.layer_id`,
    [siruta ?? null],
  );
  return {
    items: r.rows.map((x) => ({
      siruta: x.siruta,
      uatName: x.uat_name,
      layerId: x.layer_id,
      featureCount: x.feature_count,
      lastRun: toSyncRun(x),
      lastSuccessAt: x.last_success ? (x.last_success as Date).toISOString() : null,
    })),
  };
}

/** One layer's last finished sync, as the UAT dashboard shows it. */
export interface LayerSyncChanges {
  layerId: string;
  finishedAt: string | null;
  added: number;
  removed: number;
  changed: number;
  /** "parcele: 3 adăugate, 2 eliminate, 4 modificate" (./sync/rules.ts). */
  summary: string;
}

/**
 * What the last finished sync of each layer of a UAT changed (issue 30: a finished sync says what
 * it changed, by layer): the latest `done` run per layer with its added, removed and changed
 * counts, parcels first.
 */
export async function lastSyncChanges(db: Db, siruta: number): Promise<LayerSyncChanges[]> {
  const r = await db.query(
    `SELECT * FROM (
       SELECT DISTINCT ON (layer_id) * FROM gis_sync_runs WHERE siruta = $1 AND status = 'done' ORDER BY layer_id, finished_at DESC NULLS LAST
     ) last
     ORDER BY layer_id <> 'TERENURI_ACTIVE', layer_id <> 'CLADIRI_ACTIVE', layer_id`,
    [siruta],
  );
  return r.rows.map(toSyncRun).map((run) => ({
    layerId: run.layerId,
    finishedAt: run.finishedAt,
    added: run.added,
    removed: run.removed,
    changed: run.changed,
    summary: describeSyncChanges([run]),
  }));
}

/** `GET /stats`: counts of UATs, parcels, buildings and the store's size. */
export async function storeStats(db: Db): Promise<{ uats: number; uatsWithFeatures: number; parcels: number; buildings: number; features: number; enrichedParcels: number; storeSizeBytes: number; lastSyncAt: string | null }> {
  const r = await db.query(
    `SELECT (SELECT count(*)::int FROM gis_uats) AS uats,
            c.uats_with_features, c.parcels, c.buildings, c.features, c.enriched,
            (pg_total_relation_size('gis_features') + pg_total_relation_size('gis_uats'))::bigint::text AS size,
            (SELECT max(finished_at) FROM gis_sync_runs WHERE status = 'done') AS last_sync
       FROM (SELECT count(DISTINCT siruta)::int AS uats_with_features,
                    coalesce(sum(total) FILTER (WHERE layer_id = 'TERENURI_ACTIVE'), 0)::int AS parcels,
                    coalesce(sum(total) FILTER (WHERE layer_id = 'CLADIRI_ACTIVE'), 0)::int AS buildings,
                    coalesce(sum(total), 0)::int AS features,
                    coalesce(sum(enriched) FILTER (WHERE layer_id = 'TERENURI_ACTIVE'), 0)::int AS enriched
               FROM ${LAYER_COUNTS_SQL} k) c`,
  );
  const x = r.rows[0];
  return {
    uats: x.uats,
    uatsWithFeatures: x.uats_with_features,
    parcels: x.parcels,
    buildings: x.buildings,
    features: x.features,
    enrichedParcels: x.enriched,
    storeSizeBytes: Number(x.size),
    lastSyncAt: x.last_sync ? (x.last_sync as Date).toISOString() : null,
  };
}

/** A layer's counts in one UAT of the store. */
export interface LayerCounts {
  total: number;
  withGeometry: number;
  noGeometry: number;
  enriched: number;
  reenrichMarked: number;
}

/** One UAT of the store's summary: its counts per layer and its last finished sync. */
export interface StoreUat {
  siruta: number;
  name: string | null;
  county: string | null;
  layers: Record<string, LayerCounts>;
  lastSyncAt: string | null;
}

const layerCountsOf = (x: { total: number; with_geometry: number; no_geometry: number; enriched: number; reenrich_marked: number }): LayerCounts => ({
  total: x.total,
  withGeometry: x.with_geometry,
  noGeometry: x.no_geometry,
  enriched: x.enriched,
  reenrichMarked: x.reenrich_marked,
});

/** `GET /db-summary`: per UAT with features, per layer: with geometry, without (NO_GEOMETRY), enriched. */
export async function dbSummary(db: Db): Promise<{ uats: StoreUat[] }> {
  // A UAT's last sync read once per UAT, not once per layer row of it.
  const r = await db.query(
    `SELECT c.siruta, u.name, u.county, c.layer_id, c.total::int, c.with_geometry::int, c.no_geometry::int, c.enriched::int,
            c.reenrich_marked::int, s.last_sync
       FROM ${LAYER_COUNTS_SQL} c LEFT JOIN gis_uats u ON u.siruta = c.siruta
       LEFT JOIN (SELECT siruta, max(finished_at) AS last_sync FROM gis_sync_runs WHERE status = 'done' GROUP BY siruta) s ON s.siruta = c.siruta
      ORDER BY u.county, u.name, c.siruta, c.layer_id`,
  );
  const bySiruta = new Map<number, StoreUat>();
  for (const x of r.rows) {
    let u = bySiruta.get(x.siruta);
    if (!u) bySiruta.set(x.siruta, (u = { siruta: x.siruta, name: x.name, county: x.county, layers: {}, lastSyncAt: x.last_sync ? (x.last_sync as Date).toISOString() : null }));
    u.layers[x.layer_id] = layerCountsOf(x);
  }
  return { uats: [...bySiruta.values()] };
}

/** UATs a page of the sync tab's table lists. */
export const STORE_UATS_PAGE_SIZE = 50;

/** A page of the store's UATs, in db-summary's order (county, name), with the total that matched. */
export interface StoreUatsPage {
  uats: StoreUat[];
  total: number;
  /** 1-based, within the pages there are. */
  page: number;
  pageSize: number;
  /** What the UAT name, county or SIRUTA was asked to hold ('' for every UAT). */
  q: string;
}

/**
 * The sync tab's table of the store's UATs: one page of them with the counts of `layers` only
 * (what the table shows), and how many there are. Unlike db-summary it reads only its page's
 * counts and syncs, so a store of every UAT of the country costs the page what a store of fifty
 * does; `q` finds a UAT by name, county or SIRUTA, diacritics and case aside.
 */
/** 5 million UATs: a larger page number is past the last page of any store. */
const STORE_UATS_MAX_PAGE = 100_000;

export async function storeUatsPage(db: Db, opts: { q?: string; page?: number }, layers: readonly string[]): Promise<StoreUatsPage> {
  const q = (opts.q ?? '').trim();
  const held = `WITH held AS (SELECT k.siruta, u.name, u.county
                  FROM (SELECT DISTINCT c.siruta FROM ${LAYER_COUNTS_SQL} c) k LEFT JOIN gis_uats u ON u.siruta = k.siruta
                 WHERE $1 = '' OR k.siruta::text = $1 OR f_norm(coalesce(u.name, '') || ' ' || coalesce(u.county, '')) LIKE '%' || f_norm($2) || '%')`;
  // One walk of the store's UATs gives the page and the total; a page past the last (an old
  // link, a search that now holds fewer) costs a count and the last page's read.
  const read = (page: number) =>
    db.query(
      `${held}, page AS (SELECT *, count(*) OVER ()::int AS total FROM held ORDER BY county, name, siruta LIMIT $3 OFFSET $4)
       SELECT p.siruta, p.name, p.county, p.total,
              (SELECT max(finished_at) FROM gis_sync_runs r WHERE r.siruta = p.siruta AND r.status = 'done') AS last_sync,
              (SELECT coalesce(jsonb_agg(to_jsonb(c)), '[]') FROM ${LAYER_COUNTS_SQL} c WHERE c.siruta = p.siruta AND c.layer_id = ANY($5::text[])) AS counts
         FROM page p ORDER BY p.county, p.name, p.siruta`,
      [q, escapeLike(q), STORE_UATS_PAGE_SIZE, (page - 1) * STORE_UATS_PAGE_SIZE, layers],
    );
  // Past any store's last page (an address typed by hand: 1e300, Infinity): read as past the last.
  let page = Math.min(Math.max(1, Math.floor(opts.page ?? 1)), STORE_UATS_MAX_PAGE);
  let r = await read(page);
  let total: number = r.rows[0]?.total ?? 0;
  if (r.rows.length === 0 && page > 1) {
    const count = await db.query<{ n: number }>(`${held} SELECT count(*)::int AS n FROM held`, [q, escapeLike(q)]);
    total = count.rows[0]?.n ?? 0;
    page = Math.max(1, Math.ceil(total / STORE_UATS_PAGE_SIZE));
    if (total > 0) r = await read(page);
  }
  const uats = r.rows.map(
    (x): StoreUat => ({
      siruta: x.siruta,
      name: x.name,
      county: x.county,
      layers: Object.fromEntries(
        (x.counts as Array<{ layer_id: string; total: string; with_geometry: string; no_geometry: string; enriched: string; reenrich_marked: string }>).map((c) => [
          c.layer_id,
          layerCountsOf({ total: Number(c.total), with_geometry: Number(c.with_geometry), no_geometry: Number(c.no_geometry), enriched: Number(c.enriched), reenrich_marked: Number(c.reenrich_marked) }),
        ]),
      ),
      lastSyncAt: x.last_sync ? (x.last_sync as Date).toISOString() : null,
    }),
  );
  return { uats, total, page, pageSize: STORE_UATS_PAGE_SIZE, q };
}

/** `GET /layers/summary`: feature counts per layer. */
export async function layersSummary(db: Db): Promise<{ layers: Array<{ layerId: string; category: string | null; name: string | null; features: number; uats: number }> }> {
  const r = await db.query(
    `SELECT l.layer_id, l.category, l.name, coalesce(c.n, 0)::int AS features, coalesce(c.uats, 0)::int AS uats
       FROM gis_layers l LEFT JOIN (SELECT layer_id, sum(total) AS n, count(*) AS uats FROM ${LAYER_COUNTS_SQL} k GROUP BY layer_id) c USING (layer_id)
      ORDER BY l.category, l.layer_id`,
  );
  return { layers: r.rows.map((x) => ({ layerId: x.layer_id, category: x.category, name: x.name, features: x.features, uats: x.uats })) };
}

export interface FeatureListItem {
  id: string;
  objectId: number;
  siruta: number;
  layerId: string;
  cadastralRef: string | null;
  areaValue: number | null;
  geometrySource: string | null;
  enrichedAt: string | null;
}

/** CONTRACT.md `GET /features`. */
export async function listFeatures(db: Db, q: { siruta?: number; layerId?: string; limit: number; offset: number }): Promise<{ items: FeatureListItem[]; total: number }> {
  const params = [q.siruta ?? null, q.layerId ?? null];
  const where = `($1::int IS NULL OR siruta = $1) AND ($2::text IS NULL OR layer_id = $2)`;
  const [items, total] = await Promise.all([
    db.query(
      `SELECT id, object_id::text, siruta, layer_id, cadastral_ref, area_value, geometry_source, enriched_at
         FROM gis_features WHERE ${where} ORDER BY siruta, layer_id, object_id LIMIT $3 OFFSET $4`,
      [...params, q.limit, q.offset],
    ),
    // The same filter over the kept counts: a page of the whole store does not count the store.
    db.query<{ n: number }>(`SELECT coalesce(sum(total), 0)::int AS n FROM ${LAYER_COUNTS_SQL} c WHERE ${where}`, params),
  ]);
  return {
    items: items.rows.map((x) => ({
      id: x.id,
      objectId: Number(x.object_id),
      siruta: x.siruta,
      layerId: x.layer_id,
      cadastralRef: x.cadastral_ref,
      areaValue: x.area_value,
      geometrySource: x.geometry_source,
      enrichedAt: x.enriched_at ? (x.enriched_at as Date).toISOString() : null,
    })),
    total: total.rows[0].n,
  };
}

/** The store's rows of a parcel and its buildings (`<ref>-C<n>`), for debug-fields. */
export async function localFeatureState(db: Db, siruta: number, cadRef: string): Promise<Record<string, unknown>[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT id, layer_id, object_id::text AS object_id, cadastral_ref, area_value, is_active, geometry_source, attributes,
            enrichment, enriched_at, reenrich_marked, valid_from, sync_run_id, updated_at, geom IS NOT NULL AS has_geometry
       FROM gis_features WHERE siruta = $1 AND (cadastral_ref = $2 OR cadastral_ref LIKE $3)
      ORDER BY layer_id, cadastral_ref`,
    [siruta, cadRef, `${cadRef.replace(/[%_\\]/g, '\\$&')}-C%`],
  );
  return r.rows;
}
