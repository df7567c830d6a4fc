/**
 * The features of /ogc from the store (issue 29). PostgreSQL writes the GeoJSON: each feature is
 * one text of ST_AsGeoJSON, json_build_object of the common properties and the enrichment
 * properties stored ready per viewer class (propertiesSql), a page is one string_agg of them, so
 * the web process copies a page through without parsing or building an object per feature (a
 * 10,000-feature page never holds the event loop for more than the copy).
 *
 * Pages walk the unique key (siruta, layer_id, object_id) of gis_features: `after`/`before` a
 * key, never an OFFSET (domain/ogc/params.ts `Cursor`).
 */
import type pg from 'pg';
import { errors } from '../errors';
import { onOwnConnection } from '../db/ownConnection';
import type { Db } from '../db/pool';
import { LAYER_COUNTS_SQL } from '../store/holdings';
import type { Viewer } from '../auth/rules';
import { COMMON_PROPERTIES, STORED_PROPERTIES_COLUMN, enrichmentMembersSql, propertyClass, type OgcCollection } from './collections';
import { STEREO70, clipToStoreArea, type Cursor, type Envelope, type OgcCrs, type TimeRange } from './params';

export interface ItemsQuery {
  collection: OgcCollection;
  viewer: Viewer;
  crs: OgcCrs;
  bbox?: Envelope;
  datetime?: TimeRange;
  siruta?: number;
  cadastralRef?: string;
  cursor?: Cursor;
  limit: number;
}

export interface Key {
  siruta: number;
  objectId: string;
}

export interface ItemsPage {
  /** The page's Feature texts joined by commas (the inside of the `features` array). */
  features: string;
  returned: number;
  first: Key | null;
  last: Key | null;
  hasNext: boolean;
  hasPrev: boolean;
}

/** The geometry in the answer's CRS, positions in that CRS's axis order. */
function geometrySql(crs: OgcCrs): string {
  // CRS84 from the Web Mercator copy the trigger keeps: its inverse is plain spherical arithmetic
  // (no datum shift to run again) and lands within 1e-14 degrees of transforming the store's own.
  const g = crs.srid === 3844 ? 'ST_FlipCoordinates(f.geom)' : crs.srid === 3857 ? 'f.geom_3857' : 'ST_Transform(f.geom_3857, 4326)';
  // Options 0: no "crs" member inside the geometry (the answer's Content-Crs says it).
  return `COALESCE(ST_AsGeoJSON(${g}, 9, 0), 'null')`;
}

/**
 * A feature's properties text: the common members built here, the enrichment members copied from
 * the viewer class's stored column (domain/ogc/collections.ts STORED_PROPERTIES_COLUMN), the
 * all-null text for a feature not enriched yet, or built from the enrichment for a row the trigger
 * has not filled (none after the derived objects ran).
 */
function propertiesSql(q: Pick<ItemsQuery, 'collection' | 'viewer'>, uatName?: string): string {
  const cls = propertyClass(q.collection, q.viewer);
  const common = commonMembersSql(uatName);
  if (cls === 'common') return `'{' || ${common} || '}'`;
  // Not enriched yet (the trigger leaves NULL): every key null, built once for the statement (an
  // uncorrelated subquery); a row the trigger has not filled is built from its enrichment.
  const allNull = `(SELECT ${enrichmentMembersSql(cls, 'n')} FROM (SELECT NULL::jsonb AS enrichment) n)`;
  const stored = `COALESCE(f.${STORED_PROPERTIES_COLUMN[cls]}, CASE WHEN f.enrichment IS NULL THEN ${allNull} ELSE ${enrichmentMembersSql(cls, 'f')} END)`;
  return `'{' || ${common} || ', ' || ${stored} || '}'`;
}

/**
 * The common members as json_build_object writes them (`"name" : value, …`, the same bytes), but
 * concatenated, which measured 28 % less for the page's statement (docs/qgis.md). `uatName`
 * replaces the per-feature lookup of the UAT's name when the page is one UAT's (one InitPlan).
 */
function commonMembersSql(uatName?: string): string {
  return COMMON_PROPERTIES.map((p, i) => {
    const expr = p.name === 'uat_name' && uatName ? uatName : p.expr;
    return `'${i === 0 ? '' : ', '}"${p.name}" : ' || COALESCE(to_json(${expr})::text, 'null')`;
  }).join(' || ');
}

function featureSql(q: Pick<ItemsQuery, 'collection' | 'viewer' | 'crs'>, uatName?: string): string {
  return `'{"type":"Feature","id":"' || f.id || '","geometry":' || ${geometrySql(q.crs)}
    || ',"properties":' || ${propertiesSql(q, uatName)} || '}'`;
}

class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

function envelopeSql(e: Envelope, p: Params): string {
  const box = `ST_MakeEnvelope(${p.add(e.xmin)}::float8, ${p.add(e.ymin)}::float8, ${p.add(e.xmax)}::float8, ${p.add(e.ymax)}::float8, ${e.srid})`;
  if (e.srid === STEREO70.srid) return box;
  // The box's edges are straight in its own CRS, curved in Stereo 70: densified before moving.
  const step = e.srid === 4326 ? 0.01 : 1000;
  return `ST_Transform(ST_Segmentize(${box}, ${step}), ${STEREO70.srid})`;
}

/** The filters of a query, without the keyset bounds. */
function whereSql(q: ItemsQuery, p: Params): string[] {
  const where = [`f.layer_id = ${p.add(q.collection.layerId)}`];
  if (q.siruta !== undefined) where.push(`f.siruta = ${p.add(q.siruta)}`);
  if (q.cadastralRef !== undefined) where.push(`f.cadastral_ref = ${p.add(q.cadastralRef)}`);
  if (q.bbox) {
    const clipped = clipToStoreArea(q.bbox);
    if (!clipped) return [...where, 'false'];
    const box = envelopeSql(clipped, p);
    where.push(`f.geom && ${box}`, `ST_Intersects(f.geom, ${box})`);
  }
  if (q.datetime?.from) where.push(`f.updated_at >= ${p.add(q.datetime.from)}`);
  if (q.datetime?.to) where.push(`f.updated_at <= ${p.add(q.datetime.to)}`);
  return where;
}

/**
 * The keyset bound. Within one UAT (a `siruta` filter) it is on object_id alone: PostgreSQL 15,
 * given both `siruta = S` and the row comparison, starts the index scan at the UAT's first key
 * and filters up to the cursor, so a page deep into a 200,000-parcel UAT read most of the UAT's
 * index first (60 ms near the end, linear in the position; a whole copy was quadratic).
 */
function keyBound(op: '>' | '>=' | '<', k: Key, q: ItemsQuery, p: Params): string {
  if (q.siruta !== undefined) {
    if (k.siruta === q.siruta) return `f.object_id ${op} ${p.add(k.objectId)}::bigint`;
    // A cursor of another UAT: every row of this one is on the same side of it.
    return (op === '<') === (q.siruta < k.siruta) ? 'true' : 'false';
  }
  return `(f.siruta, f.layer_id, f.object_id) ${op} (${p.add(k.siruta)}::int, ${p.add(q.collection.layerId)}::text, ${p.add(k.objectId)}::bigint)`;
}

const parseKey = (s: string | null): Key | null => {
  if (!s) return null;
  const i = s.indexOf('_');
  return { siruta: Number(s.slice(0, i)), objectId: s.slice(i + 1) };
};

/** A statement of a page, cancelled on the server when the caller left (domain/db/ownConnection.ts). */
const cancellable = <R extends pg.QueryResultRow>(db: Db, text: string, values: unknown[], signal?: AbortSignal): Promise<R[]> =>
  onOwnConnection(db, signal, async (conn) => (await conn.query<R>(text, values)).rows);

/**
 * The statement of one page: up to `limit` + 1 rows from the lower bound on (the extra one says
 * whether a next page exists), their Feature texts joined, and the first and last keys.
 * Exported for the bench, which times it inside PostgreSQL (scripts/bench/95-ogc.ts).
 */
export function pageStatement(q: ItemsQuery, lower: { key: Key; inclusive: boolean } | null, upper: Key | null): { text: string; values: unknown[] } {
  const p = new Params();
  const where = whereSql(q, p);
  if (lower) where.push(keyBound(lower.inclusive ? '>=' : '>', lower.key, q, p));
  if (upper) where.push(keyBound('<', upper, q, p));
  const limit = p.add(q.limit);
  const uatName = q.siruta === undefined ? undefined : `(SELECT u.name FROM gis_uats u WHERE u.siruta = ${p.add(q.siruta)}::int)`;
  return {
    text: `SELECT count(*)::int AS fetched,
          coalesce(string_agg(feature, ',') FILTER (WHERE rn <= ${limit}), '') AS features,
          (array_agg(key) FILTER (WHERE rn = 1))[1] AS first_key,
          (array_agg(key ORDER BY rn DESC) FILTER (WHERE rn <= ${limit}))[1] AS last_key
     FROM (SELECT f.siruta || '_' || f.object_id AS key,
                  row_number() OVER (ORDER BY f.siruta, f.object_id) AS rn,
                  ${featureSql(q, uatName)} AS feature
             FROM gis_features f
            WHERE ${where.join(' AND ')}
            ORDER BY f.siruta, f.object_id
            LIMIT ${limit}::int + 1) page`,
    values: p.values,
  };
}

export async function queryItems(q: ItemsQuery, opts: { db: Db; signal?: AbortSignal }): Promise<ItemsPage> {
  const db = opts.db;
  let lower: { key: Key; inclusive: boolean } | null = null;
  let upper: Key | null = null;
  let hasPrev = false;
  if (q.cursor?.direction === 'after') {
    lower = { key: q.cursor, inclusive: false };
    hasPrev = true;
  } else if (q.cursor?.direction === 'before') {
    // A page ending just before the cursor: find where it starts (keys only), then read it forwards.
    upper = q.cursor;
    const p = new Params();
    const where = [...whereSql(q, p), keyBound('<', upper, q, p)];
    const keys = await cancellable<{ key: string }>(
      db,
      `SELECT f.siruta || '_' || f.object_id AS key FROM gis_features f WHERE ${where.join(' AND ')}
        ORDER BY f.siruta DESC, f.object_id DESC LIMIT ${p.add(q.limit + 1)}`,
      p.values,
      opts.signal,
    );
    hasPrev = keys.length > q.limit;
    const start = keys.length === 0 ? null : keys[Math.min(q.limit, keys.length) - 1];
    if (start) lower = { key: parseKey(start.key)!, inclusive: true };
  }

  const st = pageStatement(q, lower, upper);
  const rows = await cancellable<{ fetched: number; features: string; first_key: string | null; last_key: string | null }>(db, st.text, st.values, opts.signal);
  const r = rows[0];
  const returned = Math.min(r.fetched, q.limit);
  return {
    features: r.features,
    returned,
    first: parseKey(r.first_key),
    last: parseKey(r.last_key),
    // Walking backwards, the page before the cursor always has the cursor's page after it.
    hasNext: upper ? true : r.fetched > q.limit,
    hasPrev,
  };
}

/** One feature by its uuid in the collection's layer; 404 when it is not there. */
export async function queryItem(
  q: Pick<ItemsQuery, 'collection' | 'viewer' | 'crs'> & { id: string; /** A UAT's own collection: its features only. */ siruta?: number },
  db: Db,
): Promise<string> {
  const notFound = () => errors.notFound('Obiectul nu există în această colecție.');
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(q.id)) throw notFound();
  const uat = q.siruta;
  const r = await db.query<{ feature: string }>(
    `SELECT ${featureSql(q)} AS feature FROM gis_features f WHERE f.id = $1 AND f.layer_id = $2${uat === undefined ? '' : ' AND f.siruta = $3'}`,
    uat === undefined ? [q.id, q.collection.layerId] : [q.id, q.collection.layerId, uat],
  );
  if (!r.rows[0]) throw notFound();
  return r.rows[0].feature;
}

export interface CollectionExtent {
  /** CRS84 [minLon, minLat, maxLon, maxLat], or null when nothing of the layer is in the store. */
  bbox: [number, number, number, number] | null;
  /** When the layer was first synced (the sync stamp's lower end); the upper end stays open. */
  firstSync: string | null;
}

/**
 * The extent of each collection: the UATs that hold the layer (a probe of the unique index per
 * UAT instead of a scan of every feature), in CRS84; kept a minute, since /collections is asked
 * at every connection of a client.
 */
let extentCache: { at: number; value: Map<string, CollectionExtent> } | null = null;
const EXTENT_TTL_MS = 60_000;

export async function collectionExtents(layerIds: readonly string[], db: Db): Promise<Map<string, CollectionExtent>> {
  if (extentCache && Date.now() - extentCache.at < EXTENT_TTL_MS) return extentCache.value;
  const r = await db.query<{ layer_id: string; xmin: number | null; ymin: number | null; xmax: number | null; ymax: number | null; first_sync: Date | null }>(
    `SELECT l.layer_id, ST_XMin(b) AS xmin, ST_YMin(b) AS ymin, ST_XMax(b) AS xmax, ST_YMax(b) AS ymax,
            (SELECT min(started_at) FROM gis_sync_runs s WHERE s.layer_id = l.layer_id AND s.status = 'done') AS first_sync
       FROM unnest($1::text[]) AS l(layer_id)
       CROSS JOIN LATERAL (
         SELECT ST_Transform(ST_Segmentize(ST_SetSRID(ST_Extent(u.geom)::geometry, 3844), 1000), 4326) AS b
           FROM gis_uats u
          WHERE u.geom IS NOT NULL
            AND EXISTS (SELECT 1 FROM gis_features f WHERE f.siruta = u.siruta AND f.layer_id = l.layer_id)) e`,
    [layerIds],
  );
  const value = new Map<string, CollectionExtent>();
  for (const row of r.rows) {
    const bbox = row.xmin === null ? null : ([row.xmin, row.ymin, row.xmax, row.ymax] as [number, number, number, number]);
    value.set(row.layer_id, { bbox, firstSync: row.first_sync ? row.first_sync.toISOString() : null });
  }
  extentCache = { at: Date.now(), value };
  return value;
}

/** Romania in EPSG:3844 (the CRS's area of use): where a project of no known extent opens. */
const ROMANIA_3844 = { xmin: 116_000, ymin: 215_000, xmax: 1_000_000, ymax: 780_000 };

/**
 * What a QGIS project opens on, in EPSG:3844: one UAT's limit (its features when the limit is not
 * synced yet), or every UAT's with a store-wide project; Romania when the store has neither.
 * `null` for a siruta the store does not know.
 */
export async function projectExtent(siruta: number | null, db: Db): Promise<{ name: string | null; extent: typeof ROMANIA_3844 } | null> {
  const r = await db.query<{ name: string | null; xmin: number | null; ymin: number | null; xmax: number | null; ymax: number | null }>(
    `WITH b AS (
       SELECT (SELECT u.name FROM gis_uats u WHERE u.siruta = $1) AS name,
              COALESCE((SELECT ST_Extent(u.geom) FROM gis_uats u WHERE ($1::int IS NULL OR u.siruta = $1) AND u.geom IS NOT NULL),
                       (SELECT ST_Extent(f.geom) FROM gis_features f WHERE f.siruta = $1)) AS e)
     SELECT name, ST_XMin(e) AS xmin, ST_YMin(e) AS ymin, ST_XMax(e) AS xmax, ST_YMax(e) AS ymax FROM b`,
    [siruta],
  );
  const row = r.rows[0];
  if (siruta !== null && row.name === null) return null;
  const extent = row.xmin === null ? ROMANIA_3844 : { xmin: row.xmin, ymin: row.ymin!, xmax: row.xmax!, ymax: row.ymax! };
  return { name: row.name, extent };
}

/** The UATs whose parcels the store holds with a drawing: what a QGIS project can show, by name. */
export async function uatsWithParcels(db: Db): Promise<{ siruta: number; name: string; county: string | null }[]> {
  const r = await db.query<{ siruta: number; name: string; county: string | null }>(
    `SELECT u.siruta, u.name, u.county
       FROM ${LAYER_COUNTS_SQL} c JOIN gis_uats u ON u.siruta = c.siruta
      WHERE c.layer_id = 'TERENURI_ACTIVE' AND c.with_geometry > 0
      ORDER BY u.name, u.siruta`,
  );
  return r.rows;
}
