/**
 * MVT rendering straight from PostGIS: one parameterised query a tile. The views' geom is already
 * EPSG:3857 (docs/store.md), so ST_AsMVTGeom only clips and quantises. The bbox filter is the tile
 * envelope widened by the buffer, so features just outside the tile still draw their edge into
 * it and the GiST index on the 3857 geometry does the selection.
 *
 * Below GENERALISE_BELOW_ZOOM the feature sources are generalised to the map's pixel (a vector
 * tile is drawn TILE_PIXELS wide): polygons smaller than one pixel² are left out and the rest are
 * simplified with a tolerance of one pixel before ST_AsMVTGeom quantises them. From that zoom on
 * tiles are exact. The UAT sources have their own per-zoom simplified geometries and are never
 * filtered (docs/tiles.md "Performance").
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { config } from '../config';
import { errors } from '../errors';
import { getPool, type Db } from '../db/pool';
import { ByteLru } from './lru';
import { tileLayer, type TileLayerSpec } from './sources';
import { tileVersion } from './versions';

/** MVT extent and buffer in tile units (the defaults of Martin and ST_AsMVT). */
export const MVT_EXTENT = 4096;
export const MVT_BUFFER = 64;
/** Highest zoom a tile may be asked for; deeper than this no map library asks. */
export const MAX_TILE_ZOOM = 22;

export interface TileAddress {
  source: string;
  z: number;
  x: number;
  y: number;
}

/** Feature sources are generalised at zooms below this one; from it on (z16+) tiles are exact. */
export const GENERALISE_BELOW_ZOOM = 16;
/** Display pixels across a vector tile (MapLibre's tile size for vector sources). */
export const TILE_PIXELS = 512;
/** Width of the EPSG:3857 world in metres (the z0 tile). */
const WORLD_3857_M = 40075016.68557849;

/** Side of one display pixel in EPSG:3857 metres at zoom z. */
export function pixelSize3857(z: number): number {
  return WORLD_3857_M / 2 ** z / TILE_PIXELS;
}

function tileSql(layer: TileLayerSpec): string {
  // Relation and column expressions come from the fixed TILE_LAYERS list, never from input;
  // z/x/y and the layer name are bound parameters.
  const cols = layer.fields.map((f) => `${f.sql} AS ${f.name}`).join(', ');
  if (layer.kind === 'uat') {
    return `WITH b AS (
    SELECT ST_TileEnvelope($1::int, $2::int, $3::int) AS env,
           ST_TileEnvelope($1::int, $2::int, $3::int, margin => ${MVT_BUFFER / MVT_EXTENT}) AS wide
  ), q AS (
    SELECT ST_AsMVTGeom(t.geom, b.env, ${MVT_EXTENT}, ${MVT_BUFFER}, true) AS geom, ${cols}
    FROM ${layer.relation} t, b
    WHERE t.geom && b.wide
  )
  SELECT ST_AsMVT(q.*, $4::text, ${MVT_EXTENT}, 'geom') AS mvt FROM q WHERE q.geom IS NOT NULL`;
  }
  // px: the pixel side in 3857 metres below GENERALISE_BELOW_ZOOM, NULL (exact) from it on. Areas
  // are compared in 3857 too, so "one pixel²" is what the screen shows whatever the latitude.
  // Points and lines (dimension < 2) are never dropped by area.
  return `WITH b AS (
    SELECT ST_TileEnvelope($1::int, $2::int, $3::int) AS env,
           ST_TileEnvelope($1::int, $2::int, $3::int, margin => ${MVT_BUFFER / MVT_EXTENT}) AS wide,
           CASE WHEN $1::int < ${GENERALISE_BELOW_ZOOM} THEN ${WORLD_3857_M} / 2 ^ $1::int / ${TILE_PIXELS} END AS px
  ), q AS (
    SELECT ST_AsMVTGeom(CASE WHEN b.px IS NULL THEN t.geom ELSE ST_Simplify(t.geom, b.px, true) END,
                        b.env, ${MVT_EXTENT}, ${MVT_BUFFER}, true) AS geom, ${cols}
    FROM ${layer.relation} t, b
    WHERE t.geom && b.wide
      AND (b.px IS NULL OR ST_Dimension(t.geom) < 2 OR ST_Area(t.geom) >= b.px * b.px)
  )
  SELECT ST_AsMVT(q.*, $4::text, ${MVT_EXTENT}, 'geom') AS mvt FROM q WHERE q.geom IS NOT NULL`;
}

const sqlCache = new Map<string, string>();

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
  let sql = sqlCache.get(layer.name);
  if (!sql) {
    sql = tileSql(layer);
    sqlCache.set(layer.name, sql);
  }
  const query = { name: `tile:${layer.name}`, text: sql, values: [addr.z, addr.x, addr.y, layer.layer] };
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
