/**
 * MVT rendering straight from PostGIS: one parameterised query a tile. The views' geom is already
 * EPSG:3857 (docs/store.md), so ST_AsMVTGeom only clips and quantises. The bbox filter is the tile
 * envelope widened by the buffer, so features just outside the tile still draw their edge into
 * it and the GiST index on the 3857 geometry does the selection.
 */
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

function tileSql(layer: TileLayerSpec): string {
  // Relation and column expressions come from the fixed TILE_LAYERS list, never from input;
  // z/x/y and the layer name are bound parameters.
  const cols = layer.fields.map((f) => `${f.sql} AS ${f.name}`).join(', ');
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
  body: Buffer;
  cached: boolean;
}

export async function getTile(addr: TileAddress, db: Db = getPool()): Promise<CachedTile> {
  const tag = await tileTag(addr, db);
  const hit = cache.get(tag.cacheKey);
  if (hit) return { ...tag, body: hit, cached: true };
  const body = await renderTile(addr, db);
  cache.set(tag.cacheKey, body);
  return { ...tag, body, cached: false };
}

/** Does an If-None-Match header match this ETag (list, weak forms and `*` included)? */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
