/**
 * The low-zoom density rule of feature tiles (docs/tiles.md "Rendering"), in one place for the
 * tile query (domain/tiles/mvt.ts) and for what the store keeps ahead of time
 * (domain/store/views.ts: f_tile_minzoom and its partial indexes).
 *
 * Below DETAIL_MINZOOM a feature tile keeps a polygon when it is at least one display pixel² and
 * at least keepAreaPx2(z) · px² · u, u = a stable pseudo-random number in (0, 1] from its
 * object_id; points and lines are always kept. Whether a feature is kept depends only on the
 * feature and the zoom and grows with the zoom (px² shrinks 4× a zoom, the threshold never
 * grows), so each feature has a lowest zoom from which it is kept: f_tile_minzoom. Indexes over
 * the features kept from z10–z13 let a low-zoom tile read only its kept features instead of
 * every feature under it (a z12 tile of a city covers ~100,000 parcels and keeps ~4,000).
 */

/** Feature and status tiles carry every attribute and every feature from this zoom on. */
export const DETAIL_MINZOOM = 16;
/** Display pixels across a vector tile (MapLibre's tile size for vector sources). */
export const TILE_PIXELS = 512;
/** Width of the EPSG:3857 world in metres (the z0 tile). */
export const WORLD_3857_M = 40075016.68557849;
/** MVT extent of generalised (below DETAIL_MINZOOM) feature tiles (domain/tiles/mvt.ts). */
export const LOW_ZOOM_EXTENT = 1024;
/**
 * Zooms whose kept features have an index of their own (gis_features_tile_z<z>). From z14 most
 * parcels are kept (the threshold falls to 4 px², then 1 px²): the GiST index on geom_3857 itself
 * selects as well, so there the tiles read the stored lowest zoom per row, without an index.
 */
export const MINZOOM_INDEX_ZOOMS = [10, 11, 12, 13] as const;

/**
 * The density rule's threshold in display pixels² at zoom z (below DETAIL_MINZOOM). Up to z13 a
 * parcel is a few pixels and parcels read as a texture: below 64 px² (8 × 8 px) they are sampled,
 * which keeps a fully parcelled tile near 512² / 64 = 4,096 features (~125 KB). At z14 and z15 a
 * parcel is a shape of its own: only specks under 2 × 2 px (z14) or a pixel (z15) are sampled.
 */
export function keepAreaPx2(z: number): number {
  return z >= 15 ? 1 : z === 14 ? 4 : 64;
}

/** Side of one display pixel in EPSG:3857 metres at zoom z. */
export function pixelSize3857(z: number): number {
  return WORLD_3857_M / 2 ** z / TILE_PIXELS;
}

/** SQL: the pixel side at zoom z (an integer literal or parameter), as float8. */
export const pixelSql = (z: string) => `(${WORLD_3857_M} / 2 ^ ${z}::int / ${TILE_PIXELS})`;

/**
 * SQL: u in (0, 1], the same on every render and in every tile. In float8: (n + 1) / 2^31 with
 * n < 2^31 is exact in a double, the very value the numeric division gave once cast (every use
 * compares or multiplies it with float8), at a fraction of numeric arithmetic's cost, which a
 * dense z14 tile paid ~24,000 times (filter, select list, the cap's order).
 */
export const sampleSql = (objectId: string) => `(((hashint8(${objectId})::bigint & 2147483647) + 1)::float8 / 2147483648.0::float8)`;

/**
 * SQL: is this feature kept at zoom z (below DETAIL_MINZOOM)? `keep`: the threshold in display
 * pixels², keepAreaPx2(z) unless the source's record sets its own (sources.ts `keepAreaPx2`).
 */
export function keptSql(z: number, geom: string, objectId: string, keep = keepAreaPx2(z)): string {
  const px = pixelSql(String(z));
  return `(ST_Dimension(${geom}) < 2 OR (ST_Area(${geom}) >= ${px} * ${px} AND ST_Area(${geom}) >= ${keep} * ${px} * ${px} * ${sampleSql(objectId)}))`;
}

/**
 * A source's own threshold at zoom z must keep the rule's two guarantees: it is evaluated per row
 * (an indexed zoom's partial index holds the features f_tile_minzoom keeps, whatever the source),
 * and a feature kept at z - 1 is still kept at z (the pixel side halves from z - 1 to z, so the
 * threshold may grow to 4 · keepAreaPx2(z - 1)); it may only thin more than the common rule.
 */
export function checkSourceThreshold(source: string, z: number, keep: number): void {
  const indexed = (MINZOOM_INDEX_ZOOMS as readonly number[]).includes(z);
  if (indexed || z >= DETAIL_MINZOOM || keep < keepAreaPx2(z) || keep > 4 * keepAreaPx2(z - 1)) {
    throw new Error(`tile source ${source}: a threshold of ${keep} px² at zoom ${z} breaks the density rule`);
  }
}

/** The lowest zoom a feature is kept from (0–15; DETAIL_MINZOOM when only exact tiles hold it). */
export const MINZOOM_FUNCTION = 'public.f_tile_minzoom';

/**
 * Each feature keeps MINZOOM_FUNCTION's value, computed once when its geometry is written (a
 * trigger, domain/store/views.ts): the partial indexes of MINZOOM_INDEX_ZOOMS have the predicate
 * `tile_minzoom <= z`, which the same condition in a tile query matches. With the function in
 * the predicates, every insert evaluated the rule once per index (four times a row; keeping it
 * on the row cut a sync's insert CPU by 8 %, docs/tiles.md).
 */
export const MINZOOM_COLUMN = 'tile_minzoom';

/**
 * f_tile_minzoom(geom, object_id), in PL/pgSQL: a planner that inlined it into a query on
 * gis_features would examine a 16-arm expression in every plan (~0.1 ms a plan, ~40 ms the first
 * of a connection, when it still sat in the index predicates). The arithmetic is keptSql's, zoom
 * by zoom.
 */
export function minzoomFunctionSql(): string {
  const keep = Array.from({ length: DETAIL_MINZOOM }, (_, z) => `WHEN ${z} THEN ${keepAreaPx2(z)}`).join(' ');
  return `CREATE FUNCTION ${MINZOOM_FUNCTION}(g geometry, oid bigint) RETURNS int
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
  -- Autovacuum analyzes under a bare search_path and evaluates the partial indexes' predicates.
  SET search_path = public, pg_catalog AS $fn$
DECLARE
  a float8;
  u float8 := ${sampleSql('oid')};
  px float8;
BEGIN
  IF ST_Dimension(g) < 2 THEN
    RETURN 0;
  END IF;
  a := ST_Area(g);
  FOR z IN 0..${DETAIL_MINZOOM - 1} LOOP
    px := ${pixelSql('z')};
    IF a >= px * px AND a >= (CASE z ${keep} END) * px * px * u THEN
      RETURN z;
    END IF;
  END LOOP;
  RETURN ${DETAIL_MINZOOM};
END
$fn$`;
}

/** MVT extent and buffer in tile units of exact (DETAIL_MINZOOM and up) tiles: Martin's and ST_AsMVT's defaults. */
export const MVT_EXTENT = 4096;
export const MVT_BUFFER = 64;

/**
 * The zooms whose tile geometry the store keeps ready (issue 31), each in the column
 * gridColumn(z) of gis_features. z14 is where the map's live parcel tiles start and nearly every
 * parcel is kept (4 px²), so its tiles are the fullest of the generalised ones; z16 is the first
 * exact zoom, the one the map shows parcels at. In both, the per-feature ST_AsMVTGeom (GEOS
 * validation, and at z14 ST_Simplify) was most of a dense tile's time inside PostgreSQL: half at
 * z14, about three quarters at z16 (docs/bench/tiles.md).
 * Each column holds exactly what ST_AsMVTGeom gives the feature at its zoom, in world tile units:
 * the whole world as one tile gridExtent(z) · 2^z units wide, not clipped. In tile (x, y) a
 * feature lying inside the tile's buffer is that geometry shifted by (x, y) · gridExtent(z), the
 * same integers as ST_AsMVTGeom over that tile gives; a feature crossing the buffer's edge is
 * still clipped per tile (mvt.ts).
 */
export const GRID_ZOOMS = [14, DETAIL_MINZOOM] as const;
export type GridZoom = (typeof GRID_ZOOMS)[number];

export const isGridZoom = (z: number): z is GridZoom => (GRID_ZOOMS as readonly number[]).includes(z);

export const gridColumn = (z: GridZoom) => `geom_z${z}`;

/** The MVT extent of a grid zoom's tiles: generalised tiles are LOW_ZOOM_EXTENT wide, exact ones MVT_EXTENT. */
export const gridExtent = (z: GridZoom) => (z < DETAIL_MINZOOM ? LOW_ZOOM_EXTENT : MVT_EXTENT);

/**
 * SQL: the zoom-z tile geometry of a 3857 geometry, in world tile units. Below DETAIL_MINZOOM
 * simplified to a pixel first, as the generalised tiles are (mvt.ts).
 */
export function gridGeomSql(geom: string, z: GridZoom): string {
  const half = WORLD_3857_M / 2;
  const g = z < DETAIL_MINZOOM ? `ST_Simplify(${geom}, ${pixelSize3857(z)}, true)` : geom;
  return `ST_AsMVTGeom(${g}, ST_MakeEnvelope(${-half}, ${-half}, ${half}, ${half}, 3857)::box2d, ${gridExtent(z) * 2 ** z}, 0, false)`;
}
