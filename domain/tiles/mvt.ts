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
import { crc32, gzip, gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { config } from '../config';
import { errors } from '../errors';
import type { Db } from '../db/pool';
import type { Store } from '../db/store';
import { ByteLru } from './lru';
import { countTileCacheRequest, trackTileCache } from '../metrics';
import {
  DETAIL_MINZOOM,
  LOW_ZOOM_EXTENT,
  MINZOOM_COLUMN,
  MVT_BUFFER,
  MVT_EXTENT,
  gridColumn,
  gridExtent,
  isGridZoom,
  type GridZoom,
  keptSql,
  pixelSql,
  sampleSql,
} from './density';
import { TILE_SOURCES, fieldsAtZoom, tileSource, type TileSourceRecord } from './sources';
import { tileVersion } from './versions';

/** Most features a generalised tile holds, whatever the data (the safety cap above). */
export const LOW_ZOOM_MAX_FEATURES = 16384;
/** Highest zoom a tile may be asked for; deeper than this no map library asks. */
export const MAX_TILE_ZOOM = 22;

export interface TileAddress {
  source: string;
  z: number;
  x: number;
  y: number;
}

/** The MVT feature id column of the query (consumed by ST_AsMVT, never a property). */
const FEATURE_ID_COLUMN = 'mvt_feature_id';

// The buffer is the same share of the tile at every extent (64/4096), so one margin serves both.
const ENVELOPES = `ST_TileEnvelope($1::int, $2::int, $3::int) AS env,
           ST_TileEnvelope($1::int, $2::int, $3::int, margin => ${MVT_BUFFER / MVT_EXTENT}) AS wide`;

/**
 * The statements' result column. No `WHERE q.geom IS NOT NULL` before it: ST_AsMVT skips a row
 * whose clipped geometry is NULL, while that filter, pushed down into the scan, made PostgreSQL
 * clip every feature twice (issue 31: a third of a z16 tile's execution; 2,464 tiles of every
 * source at z10–z17 byte for byte the same without it). The tile comes back as base64 text, not
 * bytea: node-postgres reads every value as text, and bytea's hex doubles the bytes PostgreSQL
 * sends and the web process reads, holds as a string and decodes (docs/bench/tiles.md).
 */
const asMvt = (extent: number, fidArg: string, output: TileOutput) => {
  const mvt = `ST_AsMVT(q.*, $4::text, ${extent}, 'geom'${fidArg})`;
  return output === 'base64' ? `encode(${mvt}, 'base64') AS mvt` : `${mvt} AS mvt`;
};

/**
 * How a statement returns its tile: base64 text for the web process (above), the bytea itself for
 * the tile gateway (native/tilegate), whose driver reads it in binary, as Martin's does.
 */
export type TileOutput = 'base64' | 'bytea';

/** MVT buffer in tile units at `extent`: the same share of the tile at every extent (64/4096). */
const bufferAt = (extent: number) => (MVT_BUFFER * extent) / MVT_EXTENT;

/**
 * The tile geometry of feature `a` at grid zoom z, `clipped` its per-tile expression. At a grid
 * zoom (density.ts GRID_ZOOMS) the store holds each feature's tile geometry ready in world tile
 * units: a feature inside the buffer, one unit in from its edge so that ST_AsMVTGeom would clip
 * nothing, is that geometry shifted to the tile; one crossing the edge is clipped as elsewhere.
 * Needs `b.inner` (gridInner) and the grid relation's column.
 */
function gridGeom(a: string, z: GridZoom, clipped: string): string {
  const col = `${a}.${gridColumn(z)}`;
  const extent = gridExtent(z);
  return `CASE WHEN ${col} @ b.inner THEN ST_Translate(${col}, -$2::float8 * ${extent}, -$3::float8 * ${extent}) ELSE ${clipped} END`;
}

/** SQL: the tile's box in world tile units at grid zoom z, one unit inside its buffer (gridGeom). */
function gridInner(z: GridZoom): string {
  const extent = gridExtent(z);
  const inset = bufferAt(extent) - 1;
  return `ST_MakeEnvelope($2::float8 * ${extent} - ${inset}, $3::float8 * ${extent} - ${inset},
                          ($2::float8 + 1) * ${extent} + ${inset}, ($3::float8 + 1) * ${extent} + ${inset}, 3857) AS inner`;
}

/**
 * The query of one source at zoom z. Relation and column expressions come from the fixed
 * TILE_SOURCES records, never from input; z/x/y and the layer name are bound parameters.
 * Feature and status sources below DETAIL_MINZOOM get the generalised query of zoom z.
 */
function tileSql(source: TileSourceRecord, z: number, output: TileOutput = 'base64'): string {
  const fields = fieldsAtZoom(source, z);
  const list = fields.map((f) => `${f.sql} AS ${f.name}`).join(', ');
  const fid = source.featureId ? `, ${source.featureId.sql} AS ${FEATURE_ID_COLUMN}` : '';
  const fidArg = source.featureId ? `, '${FEATURE_ID_COLUMN}'` : '';
  // The grid zooms read the grid twin of the view, which carries the stored tile geometries.
  const grid = source.gridRelation !== undefined && isGridZoom(z) ? z : null;
  if (source.kind === 'uat' || z >= DETAIL_MINZOOM) {
    const clipped = `ST_AsMVTGeom(t.geom, b.env, ${MVT_EXTENT}, ${MVT_BUFFER}, true)`;
    return `WITH b AS (
    SELECT ${ENVELOPES}${grid !== null ? `,
           ${gridInner(grid)}` : ''}
  ), q AS (
    SELECT ${grid !== null ? gridGeom('t', grid, clipped) : clipped} AS geom, ${list}${fid}
    FROM ${grid !== null ? source.gridRelation : source.relation} t, b
    WHERE t.geom && b.wide
  )
  SELECT ${asMvt(MVT_EXTENT, fidArg, output)} FROM q`;
  }
  const extent = LOW_ZOOM_EXTENT;
  const buffer = bufferAt(extent);
  const names = fields.map((f) => `k.${f.name}`).join(', ');
  // The density rule (density.ts), read from the feature's stored lowest kept zoom wherever the
  // source keeps the common rule: the same decision as the rule's arithmetic per row, which cost
  // two ST_Area a row (issue 45: a dense z14 tile reads ~16,000 rows). At the indexed zooms that
  // condition is also the partial index's predicate, so the planner reads only the kept features.
  // A source with a threshold of its own at z (buildings at z14) evaluates its rule per row.
  const stored = source.gridRelation !== undefined && source.keepAreaPx2?.[z] === undefined;
  const kept = stored ? `t.${MINZOOM_COLUMN} <= ${z}` : keptSql(z, 't.geom', 't.object_id', source.keepAreaPx2?.[z]);
  const u = sampleSql('t.object_id');
  // The cap's priority, once a row: a line counts as a polygon one pixel wide, a point above everything.
  const priority = `CASE ST_Dimension(t.geom) WHEN 0 THEN 'Infinity'::float8
                                       WHEN 1 THEN ST_Length(t.geom) * b.px / ${u}
                                       ELSE ST_Area(t.geom) / ${u} END`;
  // At a grid zoom the full geometry is needed only by a feature crossing the buffer's edge
  // (gridGeom); the others leave it out of the cap's sort, which then moves rows a third the size.
  const geom = grid !== null ? `CASE WHEN t.${gridColumn(grid)} @ b.inner THEN NULL ELSE t.geom END AS geom, t.${gridColumn(grid)}` : 't.geom';
  const clipped = `ST_AsMVTGeom(ST_Simplify(k.geom, b.px, true), b.env, ${extent}, ${buffer}, true)`;
  return `WITH b AS (
    SELECT ${ENVELOPES},
           ${pixelSql('$1')} AS px${grid !== null ? `,
           ${gridInner(grid)}` : ''}
  ), c AS (
    SELECT ${geom}, ${list}${fid}, ${priority} AS priority
    FROM ${grid !== null || stored ? source.gridRelation : source.relation} t, b
    WHERE t.geom && b.wide AND ${kept}
  ), k AS (
    SELECT c.*
    FROM c
    ORDER BY c.priority DESC
    LIMIT ${LOW_ZOOM_MAX_FEATURES}
  ), q AS (
    SELECT ${grid !== null ? gridGeom('k', grid, clipped) : clipped} AS geom, ${names}${source.featureId ? `, k.${FEATURE_ID_COLUMN}` : ''}
    FROM k, b
  )
  SELECT ${asMvt(extent, fidArg, output)} FROM q`;
}

/** Named prepared statements, one a source and zoom (each connection prepares it once). */
const statements = new Map<string, { name: string; text: string }>();

/** The statement that renders tiles of this source at zoom z (parameters $1..$4: z, x, y, layer name). */
export function statementFor(source: TileSourceRecord, z: number): { name: string; text: string } {
  const key = `${source.name}/${z}`;
  let st = statements.get(key);
  if (!st) {
    const text = tileSql(source, z);
    st = { name: `tile:${source.name}:${createHash('sha1').update(text).digest('hex').slice(0, 10)}`, text };
    statements.set(key, st);
  }
  return st;
}

/**
 * The tile part of the tile gateway's plan (scripts/stack/tilegate.ts, docs/tiles.md "The tile
 * gateway"): every source's statement at every zoom of its range, returning the bytea; and the
 * address of a tile outside its source's range, which the web process answers 204 without
 * rendering once it has read the session (the gateway's session renewal).
 */
export function gatewayTilePlan() {
  const outOfRange = TILE_SOURCES.find((s) => s.minzoom > 0);
  if (!outOfRange) throw new Error('the tile gateway needs a source whose range starts above zoom 0 (its session renewal asks for one)');
  return {
    maxZoom: MAX_TILE_ZOOM,
    probePath: `/tiles/${outOfRange.name}/0/0/0`,
    sources: TILE_SOURCES.map((source) => {
      const statements: Record<string, string> = {};
      for (let z = source.minzoom; z <= Math.min(source.maxzoom, MAX_TILE_ZOOM); z++) statements[z] = tileSql(source, z, 'bytea');
      return { name: source.name, minzoom: source.minzoom, maxzoom: source.maxzoom, statements };
    }),
  };
}

export function checkTileAddress(addr: TileAddress): TileSourceRecord {
  const source = tileSource(addr.source);
  if (!source) throw errors.notFound(`Sursa de tile-uri „${addr.source}” nu există.`);
  const { z, x, y } = addr;
  const n = 2 ** z;
  if (!Number.isInteger(z) || z < 0 || z > MAX_TILE_ZOOM || !Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= n || y >= n) {
    throw errors.badRequest('Coordonatele tile-ului nu sunt valide.', [{ field: 'z/x/y', problem: `z 0..${MAX_TILE_ZOOM}, x și y 0..2^z-1` }]);
  }
  return source;
}

/**
 * Renders one tile; an empty Buffer when nothing lies in it or the zoom is outside the source's
 * range. One statement, one round trip, as Martin does: the tile pool's connections are opened
 * with JIT off and generic plans (TILE_SESSION_OPTIONS, domain/db/pool.ts), so there is no
 * transaction and no SET around it.
 */
export async function renderTile(db: Db, addr: TileAddress): Promise<Buffer> {
  // The line breaks PostgreSQL's base64 puts every 76 characters are skipped by Node's decoder.
  return Buffer.from(await renderTileBase64(db, addr), 'base64');
}

/** The tile as PostgreSQL sends it (base64 text, '' when empty): getTile decodes it in place. */
async function renderTileBase64(db: Db, addr: TileAddress): Promise<string> {
  const source = checkTileAddress(addr);
  if (addr.z < source.minzoom || addr.z > source.maxzoom) return '';
  const st = statementFor(source, addr.z);
  const r = await db.query<{ mvt: string | null }>({ name: st.name, text: st.text, values: [addr.z, addr.x, addr.y, source.name] });
  return r.rows[0]?.mvt ?? '';
}

// ------------------------------------------------------------------------------------------------
// Cached tiles with version-based ETags
// ------------------------------------------------------------------------------------------------

const cache = new ByteLru(config.tiles.cacheMaxEntries, config.tiles.cacheMaxBytes);

trackTileCache(() => cache.stats());

export function tileCacheStats() {
  return cache.stats();
}
export function clearTileCache(): void {
  cache.clear();
}

export interface TileTag {
  /** Weak ETag (`W/"…"`): see tileTag. */
  etag: string;
  cacheKey: string;
  version: number;
}

/**
 * The ETag depends only on the address and the source's data version, so a revalidation is
 * answered with 304 without rendering anything. It is weak: one version of a tile holds the same
 * features with the same attributes however it is rendered, but not always in the same order (at
 * z16 and up the features come in the order of the plan's scan, which a new plan may change: an
 * index rebuilt, a table's statistics renewed, another PostgreSQL version; each web process
 * renders for itself), so its bytes may differ; a strong ETag promises identical bytes (RFC 9110 8.8.1).
 */
export async function tileTag(db: Db, addr: TileAddress): Promise<TileTag> {
  checkTileAddress(addr);
  const v = await tileVersion(db, addr.source);
  const cacheKey = `${addr.source}/${addr.z}/${addr.x}/${addr.y}@${v.version}:${v.bumpedAt}`;
  let etag = etags.get(cacheKey);
  if (etag === undefined) {
    etag = `W/"${createHash('sha1').update(cacheKey).digest('base64url').slice(0, 22)}"`;
    if (etags.size >= ETAG_MEMO_MAX) etags.clear();
    etags.set(cacheKey, etag);
  }
  return { etag, cacheKey, version: v.version };
}

/**
 * ETags of recent cache keys: a tile asked again (a cached answer, a revalidation) reuses its
 * tag instead of a hash object a request (issue 45). A key names its version, so an entry is
 * never stale; the memo is emptied at its bound.
 */
const etags = new Map<string, string>();
const ETAG_MEMO_MAX = 50_000;

export interface CachedTile extends TileTag {
  /** The MVT, gzip-compressed (empty when the tile has no feature). */
  gzipped: Buffer;
  cached: boolean;
}

/**
 * Tiles are cached and sent gzip-compressed, as tile servers do: an MVT compresses to a
 * fraction of its size (coordinates and repeated keys), so the cache holds more tiles and a
 * cached low-zoom tile spends its time on far fewer bytes. Compressed once, at render time.
 * A tile up to GZIP_INLINE_MAX_BYTES (every z16 tile of the bench, most low-zoom ones) is
 * compressed on the event loop: well under a millisecond, where the thread pool's round trip
 * cost a loaded machine ten times that (docs/bench/tiles.md, issue 31); larger ones
 * go to the thread pool so the loop keeps serving other requests meanwhile.
 */
const gzipAsync = promisify(gzip);
const GZIP_INLINE_MAX_BYTES = 64 * 1024;
/**
 * zlib's fastest level with a 4 KiB window: the tiles compress as Martin's do (51 % of the MVT,
 * as level 1 with the default window; level 6 gave 49 %) in a third of level 6's time and three
 * quarters of level 1's (docs/bench/tiles.md). An MVT's repeats (keys, values, command
 * runs) are short-range, so the wider window finds nothing more.
 */
const GZIP_OPTIONS = { level: 1, windowBits: 12 } as const;

/** Room for gzip's header, trailer and stored-block overhead beyond the input (and zlib's minimum chunk). */
const GZIP_SLACK_BYTES = 64;

/**
 * One scratch buffer for the MVT on its way from base64 to gzip: the decode and the compression
 * run in one synchronous step, so no other tile can reach it in between.
 */
const scratch = Buffer.allocUnsafeSlow(GZIP_INLINE_MAX_BYTES);

/**
 * The gzip of a tile sent as base64, in a buffer of its own of exactly its size (docs/tiles.md
 * "What a tile leaves in memory"). Node hands out buffers under 32 KiB as slices of shared
 * 64 KiB slabs, and zlib's output buffer is 16 KiB: a cached slice kept its slab alive (94 MB of
 * buffers for 29 MB of cached tiles), and each uncached tile's fresh buffers drove V8's full
 * collections (a pause of 10–90 ms for every request in flight). So the MVT is decoded into the
 * scratch buffer, zlib's output buffer is sized to the tile (one chunk: level 1 exceeds its input
 * by at most a header and a stored block), and the cache keeps a copy that owns its bytes.
 */
function compressBase64(base64: string): Buffer | Promise<Buffer> {
  if (base64 === '') return Buffer.alloc(0);
  if (((base64.length * 3) >>> 2) > scratch.length) {
    return gzipAsync(Buffer.from(base64, 'base64'), GZIP_OPTIONS).then(ownCopy);
  }
  const n = scratch.write(base64, 'base64');
  if (n < STORED_BELOW_BYTES) return storedGzip(scratch.subarray(0, n));
  return ownCopy(gzipSync(scratch.subarray(0, n), { ...GZIP_OPTIONS, chunkSize: n + GZIP_SLACK_BYTES }));
}

/**
 * Below this an MVT is sent in a gzip member that stores it uncompressed (issue 45): zlib's
 * per-call cost (a stream object, the compressor's state set up and torn down) was the largest
 * item of a sparse tile in the web process (docs/bench/tiles.md "The fixed cost of a tile"), ten times
 * a stored member's, for a few hundred bytes saved on a body that fits a packet or two either
 * way. Still gzip on the wire and in the cache, so every reader of a tile stays the same.
 */
const STORED_BELOW_BYTES = 2048;
/** Gzip header (RFC 1952: deflate, no flags, no time, OS Unix as zlib writes it) and a final stored block's type byte. */
const GZIP_HEADER = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x01] as const;

/** One gzip member holding `mvt` (under 64 KiB) as a single stored deflate block, in a buffer of its own. */
function storedGzip(mvt: Buffer): Buffer {
  const n = mvt.length;
  const out = Buffer.allocUnsafeSlow(GZIP_HEADER.length + 4 + n + 8);
  out.set(GZIP_HEADER, 0);
  let o: number = GZIP_HEADER.length;
  o = out.writeUInt16LE(n, o);
  o = out.writeUInt16LE(~n & 0xffff, o);
  o += mvt.copy(out, o);
  o = out.writeUInt32LE(crc32(mvt), o);
  out.writeUInt32LE(n, o);
  return out;
}

function ownCopy(b: Buffer): Buffer {
  const own = Buffer.allocUnsafeSlow(b.length);
  b.copy(own);
  return own;
}

/** Versions are read on the store's pool, tiles rendered on its tile pool. */
export async function getTile(store: Pick<Store, 'pool' | 'tilePool'>, addr: TileAddress): Promise<CachedTile> {
  const tag = await tileTag(store.pool, addr);
  const hit = cache.get(tag.cacheKey);
  countTileCacheRequest(hit ? 'hit' : 'miss');
  if (hit) return { ...tag, gzipped: hit, cached: true };
  const gzipped = await compressBase64(await renderTileBase64(store.tilePool, addr));
  cache.set(tag.cacheKey, gzipped);
  return { ...tag, gzipped, cached: false };
}

const opaqueTag = (tag: string) => tag.trim().replace(/^W\//, '');

/** Does an If-None-Match header match this ETag (list, `*` included)? Weak comparison, as GET's (RFC 9110 13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((t) => opaqueTag(t) === opaqueTag(etag));
}
