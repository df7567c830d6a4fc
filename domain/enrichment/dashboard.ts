/**
 * The UAT dashboard (spec 4.4 uat-dashboard): area statistics, intravilan/extravilan split, land
 * use by category, top owners and building counts, all from the local store (no portal call).
 */
import type { Db } from '../db/pool';
import { errors } from '../errors';
import type { Viewer } from '../auth/rules';
import { BUILDING_LAYER, NO_GEOMETRY, PARCEL_LAYER } from './store';

export const TOP_OWNERS_LIMIT = 10;

export interface UatDashboard {
  siruta: number;
  uatName: string | null;
  county: string | null;
  parcels: { total: number; withGeometry: number; noGeometry: number; enriched: number };
  /** Sum of the parcels' SUPRAFATA (enriched) or stored area (others), m². */
  totalArea: number;
  intravilan: Array<{ value: 'DA' | 'NU' | 'MIXT' | 'NECUNOSCUT'; parcels: number; area: number }>;
  landUse: Array<{ categorie: string; parcels: number; area: number }>;
  /** Null when the viewer may not see owners (basic panel or scope). */
  topOwners: Array<{ name: string; parcels: number; area: number }> | null;
  buildings: { total: number; withLegalDocuments: number; withoutLegalDocuments: number; unknown: number };
  generatedAt: string;
}

/**
 * `db`: one connection (domain/db/heavyRead.ts), so the scans run one after another on it, not
 * side by side on the pool everyone shares.
 */
export async function uatDashboard(db: Db, siruta: number, viewer: Viewer): Promise<UatDashboard> {
  const uat = await db.query<{ name: string; county: string | null }>(`SELECT name, county FROM gis_uats WHERE siruta = $1`, [siruta]);
  const parcels = await db.query<{ total: number; with_geometry: number; no_geometry: number; enriched: number; area: number }>(
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE geom IS NOT NULL)::int AS with_geometry,
            count(*) FILTER (WHERE geometry_source = $3)::int AS no_geometry,
            count(*) FILTER (WHERE enrichment IS NOT NULL)::int AS enriched,
            coalesce(sum(coalesce((enrichment->>'SUPRAFATA')::float8, area_value)), 0)::float8 AS area
       FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND is_active`,
    [siruta, PARCEL_LAYER, NO_GEOMETRY],
  );
  const intravilan = await db.query<{ value: string; parcels: number; area: number }>(
    `SELECT coalesce(enrichment->>'INTRAVILAN', 'NECUNOSCUT') AS value, count(*)::int AS parcels,
            coalesce(sum(coalesce((enrichment->>'SUPRAFATA')::float8, area_value)), 0)::float8 AS area
       FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND is_active
      GROUP BY 1 ORDER BY 3 DESC`,
    [siruta, PARCEL_LAYER],
  );
  const landUse = await db.query<{ categorie: string; parcels: number; area: number }>(
    `SELECT u->>'categorie' AS categorie, count(DISTINCT f.id)::int AS parcels,
            coalesce(sum((u->>'suprafata')::float8), 0)::float8 AS area
       FROM gis_features f
       CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(f.enrichment->'FOLOSINTE') = 'array' THEN f.enrichment->'FOLOSINTE' ELSE '[]'::jsonb END) u
      WHERE f.siruta = $1 AND f.layer_id = $2 AND f.is_active
      GROUP BY 1 ORDER BY 3 DESC`,
    [siruta, PARCEL_LAYER],
  );
  const buildings = await db.query<{ total: number; legal: number; illegal: number }>(
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE attributes->>'IS_LEGAL' = '1')::int AS legal,
            count(*) FILTER (WHERE attributes->>'IS_LEGAL' = '0')::int AS illegal
       FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND is_active`,
    [siruta, BUILDING_LAYER],
  );
  const p = parcels.rows[0];
  if (!uat.rows[0] && p.total === 0) throw errors.notFound(`Nu există date locale pentru UAT-ul ${siruta}.`);

  let topOwners: UatDashboard['topOwners'] = null;
  if (viewer.personalData) {
    // One row per (parcel, current owner); names grouped by f_norm so both ş/ș spellings count once.
    const r = await db.query<{ name: string; parcels: number; area: number }>(
      `WITH owners AS (
         SELECT f.id, coalesce((f.enrichment->>'SUPRAFATA')::float8, f.area_value, 0) AS area,
                regexp_replace(o, '\\s*\\([^()]*\\)$', '') AS name
           FROM gis_features f
           CROSS JOIN LATERAL regexp_split_to_table(f.enrichment->>'PROPRIETARI', '; ') o
          WHERE f.siruta = $1 AND f.layer_id = $2 AND f.is_active AND f.enrichment->>'PROPRIETARI' IS NOT NULL
       )
       SELECT min(name) AS name, count(DISTINCT id)::int AS parcels, sum(area)::float8 AS area
         FROM owners GROUP BY f_norm(name)
        ORDER BY parcels DESC, area DESC, min(name) LIMIT $3`,
      [siruta, PARCEL_LAYER, TOP_OWNERS_LIMIT],
    );
    topOwners = r.rows;
  }

  const b = buildings.rows[0];
  return {
    siruta,
    uatName: uat.rows[0]?.name ?? null,
    county: uat.rows[0]?.county ?? null,
    parcels: { total: p.total, withGeometry: p.with_geometry, noGeometry: p.no_geometry, enriched: p.enriched },
    totalArea: p.area,
    intravilan: intravilan.rows.map((r) => ({ value: r.value as UatDashboard['intravilan'][number]['value'], parcels: r.parcels, area: r.area })),
    landUse: landUse.rows,
    topOwners,
    buildings: { total: b.total, withLegalDocuments: b.legal, withoutLegalDocuments: b.illegal, unknown: b.total - b.legal - b.illegal },
    generatedAt: new Date().toISOString(),
  };
}
