/**
 * The quality report of a magic bundle (spec 4.4 "Sync behaviours" 3): counts per layer, parcels
 * missing enrichment fields, invalid geometries (repaired with ST_MakeValid in the export) and
 * duplicates (a cadastral number or an identical geometry on more than one record). Everything is
 * aggregated in PostGIS; only counts and at most SAMPLE_LIMIT examples reach this process.
 */
import type { Db } from '../db/pool';
import { NO_GEOMETRY_SOURCE, PARCELS_LAYER, checkSiruta } from './layers';

/** Examples listed per finding; the counts are always complete. */
export const SAMPLE_LIMIT = 20;

/** Parcel fields a user expects filled once a parcel is enriched (CONTRACT.md section 3 keys). */
export const EXPECTED_PARCEL_FIELDS = ['NR_CAD', 'NR_CF', 'ADRESA', 'PROPRIETARI', 'SUPRAFATA', 'INTRAVILAN', 'CATEGORIE'] as const;

export interface LayerQuality {
  layerId: string;
  total: number;
  withGeometry: number;
  withoutGeometry: number;
  noGeometryImports: number;
  enriched: number;
  invalidGeometries: number;
  invalidSamples: Array<{ objectId: number; cadastralRef: string | null; reason: string }>;
  duplicateCadastralRefs: { groups: number; records: number; samples: Array<{ cadastralRef: string; count: number }> };
  duplicateGeometries: { groups: number; records: number; samples: Array<{ objectIds: number[]; count: number }> };
}

export interface QualityReport {
  siruta: number;
  generatedAt: string;
  layers: LayerQuality[];
  /** Parcels only: enriched parcels missing each expected field, and parcels never enriched. */
  missingFields: { enrichedParcels: number; notEnriched: number; byField: Record<string, number> };
}

/** `signal`: a cancelled build stops between layers (each layer's scans are of the whole UAT). */
export async function qualityReport(db: Db, siruta: number, layerIds: string[], signal?: AbortSignal): Promise<QualityReport> {
  checkSiruta(siruta);
  const layers: LayerQuality[] = [];
  for (const layerId of layerIds) {
    signal?.throwIfAborted();
    layers.push(await layerQuality(db, siruta, layerId));
  }
  signal?.throwIfAborted();
  return { siruta, generatedAt: new Date().toISOString(), layers, missingFields: await missingFields(db, siruta) };
}

async function layerQuality(db: Db, siruta: number, layerId: string): Promise<LayerQuality> {
  const args = [siruta, layerId];
  const counts = await db.query<{
    total: number;
    with_geom: number;
    no_geom_imports: number;
    enriched: number;
    invalid: number;
  }>(
    `SELECT count(*)::int AS total,
            count(geom)::int AS with_geom,
            count(*) FILTER (WHERE geometry_source = $3)::int AS no_geom_imports,
            count(enrichment)::int AS enriched,
            count(*) FILTER (WHERE geom IS NOT NULL AND NOT ST_IsValid(geom))::int AS invalid
       FROM gis_features WHERE siruta = $1 AND layer_id = $2`,
    [...args, NO_GEOMETRY_SOURCE],
  );
  const invalid = await db.query<{ object_id: string; cadastral_ref: string | null; reason: string }>(
    `SELECT object_id, cadastral_ref, ST_IsValidReason(geom) AS reason
       FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND geom IS NOT NULL AND NOT ST_IsValid(geom)
      ORDER BY object_id LIMIT ${SAMPLE_LIMIT}`,
    args,
  );
  const dupRefs = await db.query<{ cadastral_ref: string; n: number; groups: number; records: number }>(
    `WITH d AS (SELECT cadastral_ref, count(*)::int AS n FROM gis_features
                 WHERE siruta = $1 AND layer_id = $2 AND cadastral_ref IS NOT NULL AND cadastral_ref <> ''
                 GROUP BY cadastral_ref HAVING count(*) > 1)
     SELECT cadastral_ref, n, (SELECT count(*)::int FROM d) AS groups, (SELECT COALESCE(sum(n), 0)::int FROM d) AS records
       FROM d ORDER BY n DESC, cadastral_ref LIMIT ${SAMPLE_LIMIT}`,
    args,
  );
  const dupGeoms = await db.query<{ ids: string[]; n: number; groups: number; records: number }>(
    `WITH d AS (SELECT array_agg(object_id ORDER BY object_id) AS ids, count(*)::int AS n FROM gis_features
                 WHERE siruta = $1 AND layer_id = $2 AND geom IS NOT NULL
                 GROUP BY md5(ST_AsEWKB(geom)) HAVING count(*) > 1)
     SELECT ids::text[] AS ids, n, (SELECT count(*)::int FROM d) AS groups, (SELECT COALESCE(sum(n), 0)::int FROM d) AS records
       FROM d ORDER BY n DESC, ids LIMIT ${SAMPLE_LIMIT}`,
    args,
  );
  const c = counts.rows[0];
  return {
    layerId,
    total: c.total,
    withGeometry: c.with_geom,
    withoutGeometry: c.total - c.with_geom,
    noGeometryImports: c.no_geom_imports,
    enriched: c.enriched,
    invalidGeometries: c.invalid,
    invalidSamples: invalid.rows.map((r) => ({ objectId: Number(r.object_id), cadastralRef: r.cadastral_ref, reason: r.reason })),
    duplicateCadastralRefs: {
      groups: dupRefs.rows[0]?.groups ?? 0,
      records: dupRefs.rows[0]?.records ?? 0,
      samples: dupRefs.rows.map((r) => ({ cadastralRef: r.cadastral_ref, count: r.n })),
    },
    duplicateGeometries: {
      groups: dupGeoms.rows[0]?.groups ?? 0,
      records: dupGeoms.rows[0]?.records ?? 0,
      samples: dupGeoms.rows.map((r) => ({ objectIds: r.ids.map(Number), count: r.n })),
    },
  };
}

async function missingFields(db: Db, siruta: number): Promise<QualityReport['missingFields']> {
  const blank = (expr: string) => `count(*) FILTER (WHERE enrichment IS NOT NULL AND COALESCE(${expr}, '') = '')::int`;
  const fieldExpr = (k: string) => (k === 'NR_CAD' ? `COALESCE(cadastral_ref, enrichment->>'NR_CAD')` : `enrichment->>'${k}'`);
  const r = await db.query<Record<string, number>>(
    `SELECT count(enrichment)::int AS enriched, count(*) FILTER (WHERE enrichment IS NULL)::int AS not_enriched,
            ${EXPECTED_PARCEL_FIELDS.map((k) => `${blank(fieldExpr(k))} AS "${k}"`).join(', ')}
       FROM gis_features WHERE siruta = $1 AND layer_id = $2`,
    [siruta, PARCELS_LAYER],
  );
  const row = r.rows[0];
  const byField: Record<string, number> = {};
  for (const k of EXPECTED_PARCEL_FIELDS) byField[k] = row[k];
  return { enrichedParcels: row.enriched, notEnriched: row.not_enriched, byField };
}
