/**
 * MVT rendering straight from PostGIS: one parameterised query a tile. The views' geom is already
 * EPSG:3857 (docs/store.md), so ST_AsMVTGeom only clips and quantises. The bbox filter is the tile
 * envelope widened by the buffer, so features just outside the tile still draw their edge into
 * it and the GiST index on the 3857 geometry does the selection.
 *
 * From DETAIL_MINZOOM (16) on, feature tiles are exact: every feature, every slim attribute,
 * extent 4096. Below it they are built for what the map draws at that zoom (docs/tiles.md
 * "Rendering"), as a tile pipeline such as tippecanoe would:
 *   - only the attributes the map uses there (fieldsAtZoom: status flags, siruta, layer_id where
 *     a source mixes layers), the feature identified by the MVT feature id = object_id;
 *   - extent LOW_ZOOM_EXTENT (1024): a tile is drawn 512 px wide and shown up to twice that before
 *     the next zoom's tiles replace it, so one unit is never more than one screen pixel;
 *   - polygons smaller than one display pixel² are left out, the rest simplified to a pixel;
 *   - a density rule (tippecanoe's tiny-polygon reduction, done by sampling): a polygon smaller
 *     than keepAreaPx2(z) display pixels² is kept with probability area / that, decided by
 *     u(object_id), a stable pseudo-random number in (0, 1]: kept when area / u >= the threshold.
 *     Large parcels always stay, small ones are thinned evenly, so a dense quarter keeps its look
 *     and its status colours keep their proportions, and a tile covered by parcels holds about
 *     512² / threshold of them whatever their size. The decision depends only on the feature and
 *     the zoom, so a parcel cut by a tile edge is kept or dropped on both sides alike: no seams;
 *   - a safety cap, LOW_ZOOM_MAX_FEATURES, for what the rule cannot bound (overlapping polygons,
 *     masses of lines), keeping the highest priorities (area / u; a line as one pixel wide).
 * The UAT sources have their own per-zoom simplified geometries and are never filtered.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { config } from '../config';
import { errors } from '../errors';
import { getPool, type Db } from '../db/pool';
import { ByteLru } from './lru';
import { DETAIL_MINZOOM, fieldsAtZoom, tileLayer, type TileLayerSpec } from './sources';
import { tileVersion } from './versions';

/** MVT extent and buffer in tile units (the defaults of Martin and ST_AsMVT), for exact tiles. */
export const MVT_EXTENT = 4096;
export const MVT_BUFFER = 64;
/** Extent of generalised (below DETAIL_MINZOOM) feature tiles; the buffer keeps the same share. */
export const LOW_ZOOM_EXTENT = 1024;
/** Most features a generalised tile holds, whatever the data (the safety cap above). */
export const LOW_ZOOM_MAX_FEATURES = 16384;
/** Highest zoom a tile may be asked for; deeper than this no map library asks. */
export const MAX_TILE_ZOOM = 22;

/**
 * The density rule's threshold in display pixels² at zoom z (below DETAIL_MINZOOM). Up to z13 a
 * parcel is a few pixels and parcels read as a texture: below 64 px² (8 × 8 px) they are sampled,
 * which keeps a fully parcelled tile near 512² / 64 = 4,096 features (~125 KB). At z14 and z15 a
 * parcel is a shape of its own: only specks under 2 × 2 px (z14) or a pixel (z15) are sampled.
 */
export function keepAreaPx2(z: number): number {
  return z >= 15 ? 1 : z === 14 ? 4 : 64;
}

export interface TileAddress {
  source: string;
  z: number;
  x: number;
  y: number;
}

/** Feature sources are generalised at zooms below this one; from it on (z16+) tiles are exact. */
export const GENERALISE_BELOW_ZOOM = DETAIL_MINZOOM;
/** Display pixels across a vector tile (MapLibre's tile size for vector sources). */
export const TILE_PIXELS = 512;
/** Width of the EPSG:3857 world in metres (the z0 tile). */
const WORLD_3857_M = 40075016.68557849;
/** The MVT feature id column of the query (consumed by ST_AsMVT, never a property). */
const FEATURE_ID_COLUMN = 'mvt_feature_id';

/** Side of one display pixel in EPSG:3857 metres at zoom z. */
export function pixelSize3857(z: number): number {
  return WORLD_3857_M / 2 ** z / TILE_PIXELS;
}

// The buffer is the same share of the tile at every extent (64/4096), so one margin serves both.
const ENVELOPES = `ST_TileEnvelope($1::int, $2::int, $3::int) AS env,
           ST_TileEnvelope($1::int, $2::int, $3::int, margin => ${MVT_BUFFER / MVT_EXTENT}) AS wide`;

/**
 * The query of one source at one level of detail. Relation and column expressions come from the
 * fixed TILE_LAYERS list, never from input; z/x/y and the layer name are bound parameters.
 * `generalised`: the feature query below GENERALISE_BELOW_ZOOM, with the attributes of `z`.
 */
function tileSql(layer: TileLayerSpec, generalised: boolean, z: number): string {
  const fields = fieldsAtZoom(layer, z);
  const list = fields.map((f) => `${f.sql} AS ${f.name}`).join(', ');
  const fid = layer.featureId ? `, ${layer.featureId.sql} AS ${FEATURE_ID_COLUMN}` : '';
  const fidArg = layer.featureId ? `, '${FEATURE_ID_COLUMN}'` : '';
  if (!generalised) {
    return `WITH b AS (
    SELECT ${ENVELOPES}
  ), q AS (
    SELECT ST_AsMVTGeom(t.geom, b.env, ${MVT_EXTENT}, ${MVT_BUFFER}, true) AS geom, ${list}${fid}
    FROM ${layer.relation} t, b
    WHERE t.geom && b.wide
  )
  SELECT ST_AsMVT(q.*, $4::text, ${MVT_EXTENT}, 'geom'${fidArg}) AS mvt FROM q WHERE q.geom IS NOT NULL`;
  }
  const extent = LOW_ZOOM_EXTENT;
  const buffer = (MVT_BUFFER * LOW_ZOOM_EXTENT) / MVT_EXTENT;
  const names = fields.map((f) => `k.${f.name}`).join(', ');
  const keep = Array.from({ length: GENERALISE_BELOW_ZOOM }, (_, zz) => `WHEN ${zz} THEN ${keepAreaPx2(zz)}`).join(' ');
  // px: the pixel side in 3857 metres. Areas are compared in 3857 too, so "one pixel²" is what
  // the screen shows whatever the latitude. u = (hash(object_id) mod 2^31 + 1) / 2^31, the same
  // on every render and in every tile. Points and lines (dimension < 2) are never dropped by
  // area; for the cap a line counts as a polygon one pixel wide, a point above everything.
  return `WITH b AS (
    SELECT ${ENVELOPES},
           ${WORLD_3857_M} / 2 ^ $1::int / ${TILE_PIXELS} AS px,
           CASE $1::int ${keep} END AS keep
  ), c AS (
    SELECT t.geom, ${list}${fid},
           ((hashint8(t.object_id)::bigint & 2147483647) + 1) / 2147483648.0 AS u
    FROM ${layer.relation} t, b
    WHERE t.geom && b.wide
  ), k AS (
    SELECT c.*
    FROM c, b
    WHERE ST_Dimension(c.geom) < 2
       OR (ST_Area(c.geom) >= b.px * b.px AND ST_Area(c.geom) >= b.keep * b.px * b.px * c.u)
    ORDER BY CASE ST_Dimension(c.geom) WHEN 0 THEN 'Infinity'::float8
                                       WHEN 1 THEN ST_Length(c.geom) * b.px / c.u
                                       ELSE ST_Area(c.geom) / c.u END DESC
    LIMIT ${LOW_ZOOM_MAX_FEATURES}
  ), q AS (
    SELECT ST_AsMVTGeom(ST_Simplify(k.geom, b.px, true), b.env, ${extent}, ${buffer}, true) AS geom, ${names}${layer.featureId ? `, k.${FEATURE_ID_COLUMN}` : ''}
    FROM k, b
  )
  SELECT ST_AsMVT(q.*, $4::text, ${extent}, 'geom'${fidArg}) AS mvt FROM q WHERE q.geom IS NOT NULL`;
}

const statements = new Map<string, { name: string; text: string }>();

function statementFor(layer: TileLayerSpec, z: number): { name: string; text: string } {
  const generalised = layer.kind !== 'uat' && z < GENERALISE_BELOW_ZOOM;
  const key = `${layer.name}|${generalised ? 'g' : 'x'}|${fieldsAtZoom(layer, z).map((f) => f.name).join(',')}`;
  let st = statements.get(key);
  if (!st) {
    const text = tileSql(layer, generalised, z);
    st = { name: `tile:${layer.name}:${createHash('sha1').update(text).digest('hex').slice(0, 10)}`, text };
    statements.set(key, st);
  }
  return st;
}

export function checkTileAddress(addr: TileAddress): TileLayerSpec {
  const layer = tileLayer(addr.source);
  if (!layer) throw errors.notFound(`Sursa de tile-uri „${addr.source}” nu există.`);
  const { z, x, y } = addr;
  const n = 2 ** z;
  if (!Number.isInteger(z) || z < 0 || z > MAX_TILE_ZOOM || !Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= n || y >= n) {
    throw errors.badRequest('Coordonatele tile-ului nu sunt valide.', [{ field: 'z/x/y', problem: `z 0..${MAX_TILE_ZOOM}, x și y 0..2^z-1` }]);
  }
  return layer;
}

/** Renders one tile; an empty Buffer when nothing lies in it or the zoom is outside the source's range. */
export async function renderTile(addr: TileAddress, db: Db = getPool()): Promise<Buffer> {
  const layer = checkTileAddress(addr);
  if (addr.z < layer.minzoom || addr.z > layer.maxzoom) return Buffer.alloc(0);
  const st = statementFor(layer, addr.z);
  const query = { name: st.name, text: st.text, values: [addr.z, addr.x, addr.y, layer.layer] };
  // JIT off for the tile query (docs/tiles.md "Performance"): the status views' per-row subplans
  // push dense tiles over jit_above_cost, and compiling costs more (~65 ms) than the query runs.
  // SET LOCAL needs a transaction; BEGIN and SET go in one round trip.
  const client = db instanceof pg.Pool ? await db.connect() : db;
  try {
    await client.query('BEGIN; SET LOCAL jit = off');
    try {
      const r = await client.query<{ mvt: Buffer | null }>(query);
      return r.rows[0]?.mvt ?? Buffer.alloc(0);
    } finally {
      await client.query('COMMIT');
    }
  } finally {
    if (client !== db) (client as pg.PoolClient).release();
  }
}

// ------------------------------------------------------------------------------------------------
// Cached tiles with version-based ETags
// ------------------------------------------------------------------------------------------------

const cache = new ByteLru(config.tiles.cacheMaxEntries, config.tiles.cacheMaxBytes);

export function tileCacheStats() {
  return cache.stats();
}
export function clearTileCache(): void {
  cache.clear();
}

export interface TileTag {
  /** Strong ETag, quoted. */
  etag: string;
  cacheKey: string;
  version: number;
}

/**
 * The ETag depends only on the address and the source's data version, so a revalidation is
 * answered with 304 without rendering anything.
 */
export async function tileTag(addr: TileAddress, db: Db = getPool()): Promise<TileTag> {
  checkTileAddress(addr);
  const v = await tileVersion(addr.source, db);
  const cacheKey = `${addr.source}/${addr.z}/${addr.x}/${addr.y}@${v.version}:${v.bumpedAt}`;
  const etag = `"${createHash('sha1').update(cacheKey).digest('base64url').slice(0, 22)}"`;
  return { etag, cacheKey, version: v.version };
}

export interface CachedTile extends TileTag {
  /** The MVT, gzip-compressed (empty when the tile has no feature). */
  gzipped: Buffer;
  cached: boolean;
}

/**
 * Tiles are cached and sent gzip-compressed, as tile servers do: an MVT compresses to a
 * fraction of its size (coordinates and repeated keys), so the cache holds more tiles and a
 * cached low-zoom tile spends its time on far fewer bytes. Compressed once, at render time.
 */
const gzipAsync = promisify(gzip);

export async function getTile(addr: TileAddress, db: Db = getPool()): Promise<CachedTile> {
  const tag = await tileTag(addr, db);
  const hit = cache.get(tag.cacheKey);
  if (hit) return { ...tag, gzipped: hit, cached: true };
  const raw = await renderTile(addr, db);
  const gzipped = raw.length === 0 ? raw : await gzipAsync(raw, { level: 6 });
  cache.set(tag.cacheKey, gzipped);
  return { ...tag, gzipped, cached: false };
}

/** Does an If-None-Match header match this ETag (list, weak forms and `*` included)? */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
