/**
 * Store reads and writes of the export module: the facts the freshness rules need, the UAT and
 * layer descriptions, and the `export-ready` in-app notification (CONTRACT.md section 3).
 */
import type { Db } from '../db/pool';
import { layerCatalogue, layerListed, lastSuccessfulSyncs, recordFinishedRun } from '../landreg/service';
import { planExportSync, type FreshnessDecision, type LayerCategory } from './freshness';
import { NO_GEOMETRY_SOURCE, PARCELS_LAYER, checkLayerId } from './layers';

/**
 * Sync runs of the no-geometry import (step N, the enrichment issue) are recorded in
 * gis_sync_runs under this pseudo layer id; the rule of spec 8 (48 h) reads the last `done` one.
 * Until such runs exist, the newest NO_GEOMETRY record of the UAT stands in for it.
 */
export const NO_GEOMETRY_IMPORT_RUN_LAYER = 'NO_GEOMETRY_IMPORT';

export interface UatInfo {
  siruta: number;
  name: string | null;
  county: string | null;
  /** Any record of this UAT in the store. */
  hasFeatures: boolean;
  /** Listed in gis_uats. */
  known: boolean;
}

export async function uatInfo(db: Db, siruta: number): Promise<UatInfo> {
  const r = await db.query<{ name: string | null; county: string | null; known: boolean; has_features: boolean }>(
    `SELECT u.name, u.county, u.siruta IS NOT NULL AS known,
            EXISTS (SELECT 1 FROM gis_features f WHERE f.siruta = $1) AS has_features
       FROM (SELECT $1::int AS s) q LEFT JOIN gis_uats u ON u.siruta = q.s`,
    [siruta],
  );
  const row = r.rows[0];
  return { siruta, name: row.name, county: row.county, known: row.known, hasFeatures: row.has_features };
}

export interface LayerInfo {
  layerId: string;
  name: string | null;
  category: LayerCategory;
}

/** Catalog entries of the layers; a layer missing from the catalog is treated as documentation-like (168 h). */
export async function layerInfos(db: Db, layerIds: string[]): Promise<LayerInfo[]> {
  const byId = await layerCatalogue(db, layerIds.map(checkLayerId));
  return layerIds.map((layerId) => {
    const row = byId.get(layerId);
    const category = (row?.category as LayerCategory | null | undefined) ?? (layerId === PARCELS_LAYER ? 'terenuri' : 'documentatii');
    return { layerId, name: row?.name ?? null, category };
  });
}

export async function layerExists(db: Db, layerId: string): Promise<boolean> {
  return layerListed(db, checkLayerId(layerId));
}

export async function lastNoGeometryImport(db: Db, siruta: number): Promise<Date | null> {
  const runs = await lastSuccessfulSyncs(db, siruta, [NO_GEOMETRY_IMPORT_RUN_LAYER]);
  const run = runs.get(NO_GEOMETRY_IMPORT_RUN_LAYER);
  if (run) return run;
  const r = await db.query<{ at: Date | null }>(
    `SELECT max(updated_at) AS at FROM gis_features WHERE siruta = $1 AND geometry_source = $2`,
    [siruta, NO_GEOMETRY_SOURCE],
  );
  return r.rows[0]?.at ?? null;
}

/** The sync steps an export must run first, decided from the store's sync history. */
export async function exportSyncPlan(
  db: Db,
  opts: { siruta: number; layerIds: string[]; includeNoGeometry: boolean; force?: boolean; now?: Date },
): Promise<FreshnessDecision[]> {
  const [infos, last] = await Promise.all([layerInfos(db, opts.layerIds), lastSuccessfulSyncs(db, opts.siruta, opts.layerIds)]);
  return planExportSync({
    now: opts.now ?? new Date(),
    force: opts.force,
    layers: infos.map((l) => ({ layerId: l.layerId, category: l.category, lastSuccessAt: last.get(l.layerId) ?? null })),
    noGeometry: opts.includeNoGeometry ? { lastSuccessAt: await lastNoGeometryImport(db, opts.siruta) } : undefined,
  });
}

/** Records a finished no-geometry import (run by an export) so the 48 h rule can read it. */
export async function recordNoGeometryImport(
  db: Db,
  r: { siruta: number; imported: number; deleted: number; startedAt: Date; workflowId?: string },
): Promise<void> {
  await recordFinishedRun(db, {
    siruta: r.siruta,
    layerId: NO_GEOMETRY_IMPORT_RUN_LAYER,
    trigger: 'export',
    added: r.imported,
    removed: r.deleted,
    startedAt: r.startedAt,
    workflowId: r.workflowId,
  });
}
