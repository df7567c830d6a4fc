/**
 * UAT geometry questions: the WGS84 bounds of a UAT (GET /api/geoportal/uat-bounds) and the
 * boundary check of spec 4.1 (GET /api/geoportal/boundary-check).
 */
import { errors } from '../errors';
import type { Db } from '../db/pool';
import type { Bbox, BoundaryItem } from './types';

/** A boundary check lists at most this many parcels of each kind; more means bad data anyway. */
export const BOUNDARY_CHECK_MAX_ITEMS = 5000;

const PARCEL_LAYER = 'TERENURI_ACTIVE';

/** The WGS84 extent of a UAT's features with geometry: it reads every one (~1 s for 200,000). */
export async function parcelsExtent(db: Db, siruta: number): Promise<Bbox | undefined> {
  const r = await db.query<{ x1: number | null; y1: number | null; x2: number | null; y2: number | null }>(
    `SELECT ST_XMin(b) AS x1, ST_YMin(b) AS y1, ST_XMax(b) AS x2, ST_YMax(b) AS y2
       FROM (SELECT box2d(ST_Transform(ST_SetSRID(ST_Extent(f.geom)::geometry, 3844), 4326)) AS b
               FROM gis_features f WHERE f.siruta = $1 AND f.geom IS NOT NULL) e`,
    [siruta],
  );
  const e = r.rows[0];
  return e && e.x1 !== null && e.y1 !== null && e.x2 !== null && e.y2 !== null ? [e.x1, e.y1, e.x2, e.y2] : undefined;
}

/**
 * A boundary-less UAT's parcel extent (parcelsExtent), kept a while: the search runs it as the
 * user types, and the map asks uat-bounds each time the UAT is chosen.
 */
const PARCEL_BOX_TTL_MS = 5 * 60_000;
const parcelBoxes = new Map<number, { box: Bbox; until: number }>();

export async function parcelsBox(db: Db, siruta: number): Promise<Bbox | undefined> {
  const kept = parcelBoxes.get(siruta);
  if (kept && kept.until > Date.now()) return kept.box;
  const box = await parcelsExtent(db, siruta);
  // Only a found extent is kept: a UAT synced a moment later must not wait for the TTL.
  if (box) parcelBoxes.set(siruta, { box, until: Date.now() + PARCEL_BOX_TTL_MS });
  return box;
}

/**
 * The UAT's boundary box; a UAT whose boundary was not synced yet falls back to the extent of its
 * features (kept a while, parcelsBox), so the map can still fly there. With it, the UAT's name and
 * county and whether the
 * store holds any of its parcels (`synced`: the map tells the user to sync an empty UAT).
 */
export async function uatBounds(
  siruta: number,
  db: Db,
): Promise<{ siruta: number; bbox: Bbox; name: string; county: string | null; synced: boolean }> {
  const r = await db.query<{ name: string | null; county: string | null; synced: boolean; x1: number | null; y1: number | null; x2: number | null; y2: number | null }>(
    `WITH box AS (SELECT box2d(ST_Transform(u.geom, 4326)) AS b FROM gis_uats u WHERE u.siruta = $1 AND u.geom IS NOT NULL)
     SELECT (SELECT name FROM gis_uats WHERE siruta = $1) AS name,
            (SELECT county FROM gis_uats WHERE siruta = $1) AS county,
            EXISTS (SELECT 1 FROM gis_features WHERE siruta = $1 AND layer_id = $2) AS synced,
            ST_XMin(b) AS x1, ST_YMin(b) AS y1, ST_XMax(b) AS x2, ST_YMax(b) AS y2
       FROM (SELECT 1) one LEFT JOIN box ON true`,
    [siruta, PARCEL_LAYER],
  );
  const row = r.rows[0];
  const boundary: Bbox | undefined =
    row && row.x1 !== null && row.y1 !== null && row.x2 !== null && row.y2 !== null ? [row.x1, row.y1, row.x2, row.y2] : undefined;
  const bbox = boundary ?? (row?.name != null ? await parcelsBox(db, siruta) : undefined);
  if (!row || row.name === null || !bbox) {
    throw errors.notFound(
      row?.name != null ? `UAT-ul ${siruta} nu are încă limită sau parcele cu geometrie.` : `UAT-ul cu codul SIRUTA ${siruta} nu există.`,
    );
  }
  return { siruta, bbox, name: row.name, county: row.county, synced: row.synced };
}

type ItemRow = { id: string; siruta: number; uat_name: string | null; cadastral_ref: string | null };
const item = (r: ItemRow): BoundaryItem => ({ id: r.id, siruta: r.siruta, uatName: r.uat_name, cadastralRef: r.cadastral_ref });

/**
 * foreign: parcels registered in another UAT whose centroid lies inside this UAT's boundary;
 * edge: parcels registered here whose centroid lies outside it. The centroid decides both ways,
 * so a parcel that merely touches the line (shared vertices, digitising slivers) is in neither.
 */
export async function boundaryCheck(
  siruta: number,
  db: Db,
): Promise<{ siruta: number; foreign: BoundaryItem[]; edge: BoundaryItem[] }> {
  const uat = await db.query<{ has_geom: boolean }>(`SELECT geom IS NOT NULL AS has_geom FROM gis_uats WHERE siruta = $1`, [siruta]);
  if (!uat.rowCount) throw errors.notFound(`UAT-ul cu codul SIRUTA ${siruta} nu există.`);
  if (!uat.rows[0].has_geom) throw errors.notFound(`UAT-ul ${siruta} nu are încă limită sincronizată; verificarea nu se poate face.`);

  // One after another on the one connection it is given (domain/db/heavyRead.ts).
  const foreign = await db.query<ItemRow>(
    `SELECT f.id, f.siruta, o.name AS uat_name, f.cadastral_ref
       FROM gis_uats u
       JOIN gis_features f ON f.geom && u.geom AND f.layer_id = $2 AND f.siruta <> u.siruta
       LEFT JOIN gis_uats o ON o.siruta = f.siruta
      WHERE u.siruta = $1 AND ST_Intersects(u.geom, ST_Centroid(f.geom))
      ORDER BY f.siruta, f.cadastral_ref
      LIMIT $3`,
    [siruta, PARCEL_LAYER, BOUNDARY_CHECK_MAX_ITEMS],
  );
  const edge = await db.query<ItemRow>(
    `SELECT f.id, f.siruta, u.name AS uat_name, f.cadastral_ref
       FROM gis_uats u
       JOIN gis_features f ON f.siruta = u.siruta AND f.layer_id = $2 AND f.geom IS NOT NULL
      WHERE u.siruta = $1 AND NOT ST_Intersects(u.geom, ST_Centroid(f.geom))
      ORDER BY f.cadastral_ref
      LIMIT $3`,
    [siruta, PARCEL_LAYER, BOUNDARY_CHECK_MAX_ITEMS],
  );
  return { siruta, foreign: foreign.rows.map(item), edge: edge.rows.map(item) };
}
