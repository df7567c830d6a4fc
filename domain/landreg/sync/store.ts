/**
 * SQL of the layer sync: sync-run records, the staging of ids (gis_sync_pending), the bulk
 * upsert of downloaded features (COPY BINARY into a temp table, then INSERT … ON CONFLICT) and the
 * deletions. Every page is written in one transaction together with its run counters and the
 * removal of its staging rows, so a page re-run after a crash finds nothing left to do.
 */
import { tilesChanged } from '../../tiles/service';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { withTransaction, type Db } from '../../db/pool';
import { esriToGeoJson, ewkbSize, writeEwkb, type GeoJsonGeometry } from '../../geo/esri';
import type { EsriFeature } from '../portal';
import { ENRICHMENT_PROBE_SIZE, pageOf, SYNC_PAGE_SIZE, type SyncMode } from './rules';

/**
 * Tells the followers of a UAT's parcels what its sync changed (the notifications' watchlist,
 * passed in by the landreg service: notifications reads UAT names through landreg's door, so
 * landreg does not import notifications).
 */
export type NotifyFollowers = (scope: { siruta: number }) => Promise<unknown>;

export type SyncTrigger = 'manual' | 'schedule' | 'county' | 'all_counties' | 'weekend' | 'export' | 'auto_refresh';
export type SyncStatus = 'running' | 'done' | 'failed';

/** CONTRACT.md section 3, GisSyncRun. */
export interface GisSyncRun {
  id: string;
  siruta: number;
  layerId: string;
  mode: SyncMode;
  trigger: SyncTrigger;
  status: SyncStatus;
  startedAt: string;
  finishedAt: string | null;
  remoteCount: number | null;
  localCountBefore: number | null;
  added: number;
  removed: number;
  reenrichMarked: number;
  /** Stored features whose cadastral number, area or geometry changed (their history rows). */
  changed: number;
  workflowId: string | null;
  error: string | null;
}

const RUN_COLUMNS = `id, siruta, layer_id, mode, trigger, status, started_at, finished_at, remote_count,
  local_count_before, added, removed, reenrich_marked, changed, workflow_id, error`;

interface RunRow {
  id: string;
  siruta: number;
  layer_id: string;
  mode: SyncMode;
  trigger: SyncTrigger;
  status: SyncStatus;
  started_at: Date;
  finished_at: Date | null;
  remote_count: number | null;
  local_count_before: number | null;
  added: number;
  removed: number;
  reenrich_marked: number;
  changed: number;
  workflow_id: string | null;
  error: string | null;
}

export function toSyncRun(r: RunRow): GisSyncRun {
  return {
    id: r.id,
    siruta: r.siruta,
    layerId: r.layer_id,
    mode: r.mode,
    trigger: r.trigger,
    status: r.status,
    startedAt: r.started_at.toISOString(),
    finishedAt: r.finished_at ? r.finished_at.toISOString() : null,
    remoteCount: r.remote_count,
    localCountBefore: r.local_count_before,
    added: r.added,
    removed: r.removed,
    reenrichMarked: r.reenrich_marked,
    changed: r.changed,
    workflowId: r.workflow_id,
    error: r.error,
  };
}

/**
 * The run row of (workflow, layer): created on the first attempt, reused by a retried plan
 * (its staging rows are dropped, the plan is made afresh).
 */
export async function openSyncRun(db: Db, a: { siruta: number; layerId: string; trigger: SyncTrigger; workflowId: string }): Promise<string> {
  return withTransaction(async (tx) => {
    const existing = await tx.query<{ id: string }>(
      `SELECT id FROM gis_sync_runs WHERE workflow_id = $1 AND layer_id = $2 AND siruta = $3 AND status = 'running' LIMIT 1`,
      [a.workflowId, a.layerId, a.siruta],
    );
    if (existing.rows[0]) {
      await tx.query(`DELETE FROM gis_sync_pending WHERE run_id = $1`, [existing.rows[0].id]);
      await tx.query(`UPDATE gis_sync_runs SET added = 0, removed = 0, reenrich_marked = 0, changed = 0 WHERE id = $1`, [existing.rows[0].id]);
      return existing.rows[0].id;
    }
    const r = await tx.query<{ id: string }>(
      `INSERT INTO gis_sync_runs (siruta, layer_id, mode, trigger, status, workflow_id) VALUES ($1, $2, 'delta', $3, 'running', $4) RETURNING id`,
      [a.siruta, a.layerId, a.trigger, a.workflowId],
    );
    return r.rows[0].id;
  }, db);
}

export async function getSyncRun(db: Db, runId: string): Promise<GisSyncRun | null> {
  const r = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM gis_sync_runs WHERE id = $1`, [runId]);
  return r.rows[0] ? toSyncRun(r.rows[0]) : null;
}

/** Whether (siruta, layer) was ever synced to the end: without one, the next sync is full. */
export async function hasCompletedSync(db: Db, siruta: number, layerId: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM gis_sync_runs WHERE siruta = $1 AND layer_id = $2 AND status = 'done' LIMIT 1`, [siruta, layerId]);
  return (r.rowCount ?? 0) > 0;
}

// NO_GEOMETRY imports (negative object ids, spec 2.3) are not features of the remote layer: the
// layer sync never counts, diffs or deletes them.
const LAYER_ROWS = `layer_id = $1 AND siruta = $2 AND object_id >= 0`;

export async function localCount(db: Db, siruta: number, layerId: string): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE ${LAYER_ROWS}`, [layerId, siruta]);
  return r.rows[0].n;
}

export async function localObjectIds(db: Db, siruta: number, layerId: string): Promise<number[]> {
  const r = await db.query<{ object_id: string }>(`SELECT object_id FROM gis_features WHERE ${LAYER_ROWS}`, [layerId, siruta]);
  return r.rows.map((x) => Number(x.object_id));
}

/** Of the given ids, those already stored. */
export async function storedAmong(db: Db, siruta: number, layerId: string, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const r = await db.query<{ object_id: string }>(
    `SELECT object_id FROM gis_features WHERE ${LAYER_ROWS} AND object_id = ANY($3::bigint[])`,
    [layerId, siruta, ids],
  );
  return new Set(r.rows.map((x) => Number(x.object_id)));
}

/** The aggregate of the newest remote LAST_UPDATED_DTM (epoch ms) over stored features; NULL when none carries one. */
export const WATERMARK_SQL = `max((attributes->>'LAST_UPDATED_DTM')::bigint) FILTER (WHERE jsonb_typeof(attributes->'LAST_UPDATED_DTM') = 'number')`;

/** Newest remote LAST_UPDATED_DTM (epoch ms) among the stored features; null when none carries one. */
export async function lastUpdatedWatermark(db: Db, siruta: number, layerId: string): Promise<number | null> {
  const r = await db.query<{ ms: string | null }>(`SELECT (${WATERMARK_SQL})::text AS ms FROM gis_features WHERE ${LAYER_ROWS}`, [layerId, siruta]);
  return r.rows[0]?.ms ? Number(r.rows[0].ms) : null;
}

/** Streams `data` into a `COPY … FROM STDIN` on the transaction's connection. */
async function copyIn(tx: pg.PoolClient | pg.Client, sql: string, data: Buffer | string): Promise<void> {
  const stream = tx.query(copyFrom(sql));
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', () => resolve());
    stream.end(data);
  });
}

/** Removals are staged in rows of this many ids (fetches in rows of one page). */
const REMOVE_ROW_IDS = 10_000;

/**
 * Stages ids (deduplicated by the caller) with one COPY, one row per page: an array of the page's
 * ids. A full sync of the bench UAT stages 200 rows, not 200,000.
 */
async function insertIds(tx: pg.PoolClient | pg.Client, runId: string, kind: 'fetch' | 'remove', ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const rowIds = kind === 'fetch' ? SYNC_PAGE_SIZE : REMOVE_ROW_IDS;
  let text = '';
  for (let i = 0, page = 0; i < ids.length; i += rowIds, page++) {
    text += `${runId}\t${kind}\t${page}\t{${ids.slice(i, i + rowIds).map((id) => Math.trunc(id)).join(',')}}\n`;
  }
  await copyIn(tx, `COPY gis_sync_pending (run_id, kind, page, object_ids) FROM STDIN`, text);
}

/** Stages the plan and records mode and counts on the run; returns the number of pages. */
export async function stagePlan(
  db: Db,
  runId: string,
  plan: { mode: SyncMode; remoteCount: number; localCountBefore: number; fetch: readonly number[]; remove: readonly number[] },
): Promise<number> {
  const fetch = [...new Set(plan.fetch)].sort((a, b) => a - b);
  const pages = fetch.length === 0 ? 0 : pageOf(fetch.length - 1) + 1;
  await withTransaction(async (tx) => {
    await tx.query(`DELETE FROM gis_sync_pending WHERE run_id = $1`, [runId]);
    await insertIds(tx, runId, 'fetch', fetch);
    await insertIds(tx, runId, 'remove', [...new Set(plan.remove)]);
    await tx.query(
      `UPDATE gis_sync_runs SET mode = $2, remote_count = $3, local_count_before = $4, pages = $5 WHERE id = $1`,
      [runId, plan.mode, plan.remoteCount, plan.localCountBefore, pages],
    );
  }, db);
  return pages;
}

/** The staged ids of one page still to download (empty once the page is written). */
export async function pendingPage(db: Db, runId: string, page: number): Promise<number[]> {
  const r = await db.query<{ object_ids: string[] }>(
    `SELECT object_ids FROM gis_sync_pending WHERE run_id = $1 AND kind = 'fetch' AND page = $2`,
    [runId, page],
  );
  return (r.rows[0]?.object_ids ?? []).map(Number);
}

// ---- one downloaded page → the store ----------------------------------------------------------
//
// The page goes to PostgreSQL in COPY's binary format (no decimal text for PostgreSQL to parse:
// coordinates as EWKB doubles, numbers and times as their binary values; only the attributes are
// JSON text), into a temporary stage table that lives as long as the connection and is emptied
// at each commit. Geometry: ESRI rings → EWKB in JS (domain/geo/esri.ts), the same geometry the
// former EWKT gave; `ST_MakeValid` in SQL only for the invalid ones.

const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** 2000-01-01T00:00:00Z in epoch ms: PostgreSQL's binary timestamps count microseconds from it. */
const PG_EPOCH_MS = 946_684_800_000;
const STAGE_COLUMNS = 'object_id, cadastral_ref, area_value, is_active, attributes, valid_from, geom';

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * A COPY BINARY stream built in one growing buffer: signature and header, then per tuple the
 * field count and (length, bytes) per field (-1 = NULL), then the trailer.
 */
class CopyBinaryBuilder {
  private buf = Buffer.allocUnsafe(1 << 19);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  private o = 0;

  constructor() {
    this.ensure(COPY_SIGNATURE.length + 8);
    this.o += COPY_SIGNATURE.copy(this.buf, 0);
    this.view.setUint32(this.o, 0); // flags
    this.view.setUint32(this.o + 4, 0); // header extension length
    this.o += 8;
  }

  private ensure(n: number): void {
    if (this.o + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.o + n));
    this.buf.copy(next, 0, 0, this.o);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }

  fields(n: number): this {
    this.ensure(2);
    this.view.setInt16(this.o, n);
    this.o += 2;
    return this;
  }

  null(): this {
    this.ensure(4);
    this.view.setInt32(this.o, -1);
    this.o += 4;
    return this;
  }

  int8(v: number): this {
    const big = BigInt(v); // refuses a fractional id, as bigint's text input does
    this.ensure(12);
    this.view.setInt32(this.o, 8);
    this.view.setBigInt64(this.o + 4, big);
    this.o += 12;
    return this;
  }

  float8(v: number | null): this {
    if (v === null) return this.null();
    this.ensure(12);
    this.view.setInt32(this.o, 8);
    this.view.setFloat64(this.o + 4, v + 0); // -0 as 0, as its decimal text would be
    this.o += 12;
    return this;
  }

  bool(v: boolean): this {
    this.ensure(5);
    this.view.setInt32(this.o, 1);
    this.view.setUint8(this.o + 4, v ? 1 : 0);
    this.o += 5;
    return this;
  }

  /** UTF-8 text after `prefix` bytes of the field (jsonb's version byte). */
  private utf8(v: string, prefix: number[] = []): this {
    this.ensure(4 + prefix.length + v.length * 3);
    const start = this.o + 4;
    for (let i = 0; i < prefix.length; i++) this.buf[start + i] = prefix[i];
    const n = this.buf.write(v, start + prefix.length, 'utf8');
    this.view.setInt32(this.o, prefix.length + n);
    this.o = start + prefix.length + n;
    return this;
  }

  text(v: string | null): this {
    return v === null ? this.null() : this.utf8(v);
  }

  /** jsonb's binary input: format version 1, then the JSON text. */
  jsonb(v: string): this {
    return this.utf8(v, [1]);
  }

  /** Epoch ms → timestamptz, whole ms as `new Date(ms).toISOString()` gave; an out-of-range date throws as it did. */
  timestamptz(ms: number | null): this {
    if (ms === null) return this.null();
    const t = new Date(ms).getTime();
    if (Number.isNaN(t)) throw new RangeError('Invalid time value');
    this.ensure(12);
    this.view.setInt32(this.o, 8);
    this.view.setBigInt64(this.o + 4, BigInt(t - PG_EPOCH_MS) * 1000n);
    this.o += 12;
    return this;
  }

  geometry(g: GeoJsonGeometry | null): this {
    if (g === null) return this.null();
    const n = ewkbSize(g);
    this.ensure(4 + n);
    this.view.setInt32(this.o, n);
    this.o = writeEwkb(g, this.view, this.o + 4);
    return this;
  }

  finish(): Buffer {
    this.ensure(2);
    this.view.setInt16(this.o, -1);
    this.o += 2;
    return this.buf.subarray(0, this.o);
  }
}

/** One feature as a tuple of the stage table (STAGE_COLUMNS); false (nothing written) without an OBJECTID. */
function stageTuple(out: CopyBinaryBuilder, f: EsriFeature): boolean {
  const a = f.attributes ?? {};
  const objectId = num(a.OBJECTID);
  if (objectId === null) return false;
  const cadRef = a.NATIONAL_CADASTRAL_REFERENCE;
  const active = a.IS_ACTIVE;
  out
    .fields(7)
    .int8(objectId)
    .text(typeof cadRef === 'string' ? cadRef : cadRef === null || cadRef === undefined ? null : String(cadRef))
    .float8(num(a.AREA_VALUE))
    .bool(active === undefined || active === null ? true : Number(active) !== 0)
    .jsonb(JSON.stringify(a))
    .timestamptz(num(a.VALID_FROM))
    .geometry(esriToGeoJson(f.geometry ?? null));
  return true;
}

/**
 * A page as one COPY BINARY stream of the stage table, each object id once (the portal may
 * repeat a feature; the upsert must see each id once: the first one is kept).
 */
export function stageCopyData(features: readonly EsriFeature[]): { data: Buffer; rows: number } {
  const out = new CopyBinaryBuilder();
  const seen = new Set<number>();
  for (const f of features) {
    const id = num(f.attributes?.OBJECTID);
    if (id === null || seen.has(id)) continue;
    if (stageTuple(out, f)) seen.add(id);
  }
  return { data: out.finish(), rows: seen.size };
}

export interface PageWriteResult {
  written: number;
  inserted: number;
  reenrichMarked: number;
  /** Stored features whose cadastral number, area or geometry changed (history rows written). */
  changed: number;
}

/** The stage → gis_features insert; `conflict` is the ON CONFLICT action, `only` an optional filter. */
function upsertSql(conflict: string, only = ''): string {
  return `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, is_active, geom, attributes, valid_from, sync_run_id)
    SELECT $1, $2, s.object_id, s.cadastral_ref, s.area_value, s.is_active,
           CASE WHEN s.geom IS NULL THEN NULL
                WHEN ST_IsValid(s.geom) THEN ST_SetSRID(s.geom, 3844)
                ELSE ST_SetSRID(ST_CollectionExtract(ST_MakeValid(s.geom), ST_Dimension(s.geom) + 1), 3844) END,
           s.attributes, s.valid_from, $3
      FROM sync_stage s ${only}
    ON CONFLICT ON CONSTRAINT gis_features_layer_uat_object_key ${conflict}`;
}

/**
 * A history row is pending notification only where someone follows something in the UAT
 * (docs/notifications.md); elsewhere it is written already notified. One index probe per statement.
 */
const HISTORY_NOTIFIED = `NOT EXISTS (SELECT 1 FROM watchlist w WHERE w.siruta = $2)`;

/**
 * (1) The new ids, DO NOTHING on the stored ones. A parcel new to a layer that was synced before
 * gets an `ADAUGATA` history row in the same statement (a first load records nothing: every
 * feature of it is "new").
 */
const INSERT_NEW = `WITH up AS (${upsertSql('DO NOTHING')} RETURNING id, object_id),
  hist AS (
    INSERT INTO feature_changes (feature_id, siruta, field, before, after, sync_run_id, notified)
    SELECT up.id, $2, 'ADAUGATA', NULL, NULL, $3, ${HISTORY_NOTIFIED}
      FROM up WHERE (SELECT r.local_count_before > 0 FROM gis_sync_runs r WHERE r.id = $3))
  SELECT object_id FROM up`;

const UPDATE_ALL = `DO UPDATE SET
      cadastral_ref = EXCLUDED.cadastral_ref, area_value = EXCLUDED.area_value, is_active = EXCLUDED.is_active,
      geom = EXCLUDED.geom, attributes = EXCLUDED.attributes, sync_run_id = EXCLUDED.sync_run_id,
      reenrich_marked = gis_features.reenrich_marked OR gis_features.valid_from IS DISTINCT FROM EXCLUDED.valid_from,
      reenrich_marked_at = CASE WHEN gis_features.valid_from IS DISTINCT FROM EXCLUDED.valid_from THEN now()
                                ELSE gis_features.reenrich_marked_at END,
      valid_from = EXCLUDED.valid_from`;

/** Ids the previous statements of the page already wrote. */
const NOT_WRITTEN = `WHERE s.object_id <> ALL($4::bigint[])`;

/** Area as the history shows it: square metres to the centimetre. */
const AREA_TEXT = (col: string) => `trim_scale(round(${col}::numeric, 2))::text || ' m²'`;

/**
 * (2) The update of the stored features, which writes in the same statement one history row per
 * changed field (cadastral number, area, geometry) and tells which VALID_FROM changed (= marked
 * for re-enrichment by UPDATE_ALL). `old` reads each stored row before the update
 * (every part of one statement sees the same snapshot) through the unique key, one index probe
 * per staged id: LIMIT keeps the subquery from being flattened into a join the planner could turn
 * into a scan of the UAT's layer. `geom IS DISTINCT FROM` is PostGIS's exact (coordinate by
 * coordinate) equality, cheaper than a topological one and what a re-drawn parcel changes.
 */
const UPDATE_STORED = `WITH old AS MATERIALIZED (
      SELECT o.* FROM sync_stage s CROSS JOIN LATERAL (
        SELECT f.id, f.cadastral_ref, f.area_value, f.geom, f.valid_from FROM gis_features f
         WHERE f.layer_id = $1 AND f.siruta = $2 AND f.object_id = s.object_id LIMIT 1) o
       ${NOT_WRITTEN}),
    up AS (${upsertSql(UPDATE_ALL, NOT_WRITTEN)} RETURNING id, object_id, cadastral_ref, area_value, geom, valid_from),
    diff AS (
      SELECT up.id, up.object_id, old.valid_from IS DISTINCT FROM up.valid_from AS marked, old.cadastral_ref AS cad_before, up.cadastral_ref AS cad_after,
             old.area_value AS area_before, up.area_value AS area_after,
             old.cadastral_ref IS DISTINCT FROM up.cadastral_ref AS cad_changed,
             CASE WHEN old.area_value IS NULL OR up.area_value IS NULL THEN old.area_value IS DISTINCT FROM up.area_value
                  ELSE abs(old.area_value - up.area_value) >= 0.01 END AS area_changed,
             old.geom IS DISTINCT FROM up.geom AS geom_changed
        FROM up JOIN old ON old.id = up.id),
    hist AS (
      INSERT INTO feature_changes (feature_id, siruta, field, before, after, sync_run_id, notified)
      SELECT d.id, $2, c.field, c.before, c.after, $3, ${HISTORY_NOTIFIED}
        FROM diff d CROSS JOIN LATERAL (VALUES
          ('NR_CAD', d.cad_changed, d.cad_before, d.cad_after),
          ('SUPRAFATA', d.area_changed, ${AREA_TEXT('d.area_before')}, ${AREA_TEXT('d.area_after')}),
          ('GEOMETRIE', d.geom_changed, NULL, NULL)) c(field, changed, before, after)
       WHERE c.changed)
    SELECT marked, cad_changed OR area_changed OR geom_changed AS changed FROM diff`;

/**
 * Writes one downloaded page: COPY into the stage table, upsert, history, run counters, staging
 * rows of the page removed, in one transaction. A stored feature whose VALID_FROM changed is
 * marked for re-enrichment. Invalid rings (self-intersections) are repaired with ST_MakeValid.
 *
 * Every upsert finds the stored row through the unique index (ON CONFLICT, or one probe per id
 * for the history), never through a join the planner could get wrong: during a first load the
 * statistics say the UAT's layer is empty while it already holds the pages written so far, and a
 * join then rescans all of them for every page (quadratic). So: (1) insert the new ids, DO
 * NOTHING on the stored ones; if any was stored, (2) update the rest, writing the history of
 * what changed and counting the VALID_FROM changes (the re-enrichment marks).
 */
export async function writePage(
  db: Db,
  a: { runId: string; siruta: number; layerId: string; page: number; features: readonly EsriFeature[] },
): Promise<PageWriteResult> {
  const stage = stageCopyData(a.features);
  return withTransaction(async (tx) => {
    let inserted = 0;
    let marked = 0;
    let written = 0;
    let changed = 0;
    if (stage.rows > 0) {
      // No JIT: the geometry functions' declared costs push a 1000-row insert over
      // jit_above_cost, and compiling it costs more than running it.
      await tx.query(`SET LOCAL jit = off;
        CREATE TEMP TABLE IF NOT EXISTS sync_stage (
          object_id bigint, cadastral_ref text, area_value double precision, is_active boolean,
          attributes jsonb, valid_from timestamptz, geom geometry) ON COMMIT DELETE ROWS`);
      await copyIn(tx, `COPY sync_stage (${STAGE_COLUMNS}) FROM STDIN (FORMAT binary)`, stage.data);
      const params = [a.layerId, a.siruta, a.runId];
      const fresh = await tx.query<{ object_id: string }>(INSERT_NEW, params);
      inserted = fresh.rowCount ?? 0;
      written = inserted;
      if (inserted < stage.rows) {
        const stored = await tx.query<{ marked: boolean; changed: boolean }>(UPDATE_STORED, [...params, fresh.rows.map((r) => r.object_id)]);
        written += stored.rowCount ?? 0;
        marked = stored.rows.filter((r) => r.marked).length;
        changed = stored.rows.filter((r) => r.changed).length;
      }
    }
    await tx.query(
      `WITH page AS (DELETE FROM gis_sync_pending WHERE run_id = $1 AND kind = 'fetch' AND page = $2)
       UPDATE gis_sync_runs SET added = added + $3, reenrich_marked = reenrich_marked + $4, changed = changed + $5 WHERE id = $1`,
      [a.runId, a.page, inserted, marked, changed],
    );
    return { written, inserted, reenrichMarked: marked, changed };
  }, db);
}

/** Deletes the staged removals and counts them on the run (one transaction: safe to re-run). */
export async function applyRemovals(db: Db, a: { runId: string; siruta: number; layerId: string }): Promise<number> {
  return withTransaction(async (tx) => {
    // The history's `ELIMINATA` row in the same statement as the delete.
    const del = await tx.query(
      `WITH gone AS (
         DELETE FROM gis_features f
          USING (SELECT unnest(object_ids) AS object_id FROM gis_sync_pending WHERE run_id = $1 AND kind = 'remove') p
          WHERE f.layer_id = $2 AND f.siruta = $3 AND f.object_id = p.object_id
         RETURNING f.id),
       hist AS (
         INSERT INTO feature_changes (feature_id, siruta, field, before, after, sync_run_id, notified)
         SELECT gone.id, $3, 'ELIMINATA', 'activă', 'eliminată', $1, NOT EXISTS (SELECT 1 FROM watchlist w WHERE w.siruta = $3)
           FROM gone)
       SELECT id FROM gone`,
      [a.runId, a.layerId, a.siruta],
    );
    const n = del.rowCount ?? 0;
    await tx.query(`DELETE FROM gis_sync_pending WHERE run_id = $1 AND kind = 'remove'`, [a.runId]);
    await tx.query(`UPDATE gis_sync_runs SET removed = removed + $2 WHERE id = $1`, [a.runId, n]);
    return n;
  }, db);
}

/** The rolling probe's sample: the oldest-enriched parcels (spec 8: 200) with their stored VALID_FROM. */
export async function oldestEnriched(db: Db, siruta: number, layerId: string, limit = ENRICHMENT_PROBE_SIZE): Promise<Array<{ objectId: number; validFrom: Date | null }>> {
  const r = await db.query<{ object_id: string; valid_from: Date | null }>(
    `SELECT object_id, valid_from FROM gis_features
      WHERE ${LAYER_ROWS} AND enriched_at IS NOT NULL AND NOT reenrich_marked
      ORDER BY enriched_at ASC LIMIT $3`,
    [layerId, siruta, limit],
  );
  return r.rows.map((x) => ({ objectId: Number(x.object_id), validFrom: x.valid_from }));
}

/** Whether the layer holds a parcel the documentation probe would ask about (oldestEnriched finds one). */
export async function hasProbeCandidates(db: Db, siruta: number, layerId: string): Promise<boolean> {
  const r = await db.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM gis_features WHERE ${LAYER_ROWS} AND enriched_at IS NOT NULL AND NOT reenrich_marked) AS any`,
    [layerId, siruta],
  );
  return r.rows[0].any;
}

/** Marks the given stored features for re-enrichment; returns how many were newly marked. */
export async function markForReenrichment(db: Db, a: { runId: string; siruta: number; layerId: string; objectIds: readonly number[] }): Promise<number> {
  if (a.objectIds.length === 0) return 0;
  return withTransaction(async (tx) => {
    const r = await tx.query(
      `UPDATE gis_features SET reenrich_marked = true, reenrich_marked_at = now()
        WHERE ${LAYER_ROWS} AND object_id = ANY($3::bigint[]) AND NOT reenrich_marked`,
      [a.layerId, a.siruta, a.objectIds],
    );
    const n = r.rowCount ?? 0;
    await tx.query(`UPDATE gis_sync_runs SET reenrich_marked = reenrich_marked + $2 WHERE id = $1`, [a.runId, n]);
    return n;
  }, db);
}

/**
 * Closes a run; leftover staging rows go. A done run records the UAT's watermark and, when it
 * changed anything, bumps the layer's tile sources. Returns the final record.
 */
export async function closeSyncRun(db: Db, notifyFollowers: NotifyFollowers, a: { runId: string; siruta: number; layerId: string; status: 'done' | 'failed'; error?: string }): Promise<GisSyncRun> {
  await db.query(`DELETE FROM gis_sync_pending WHERE run_id = $1`, [a.runId]);
  const r = await db.query<RunRow>(
    `UPDATE gis_sync_runs SET status = $2, finished_at = now(), error = $3 WHERE id = $1 RETURNING ${RUN_COLUMNS}`,
    [a.runId, a.status, a.error ?? null],
  );
  const run = toSyncRun(r.rows[0]);
  if (a.status === 'done') {
    await recordUatLastUpdated(db, a.siruta, a.layerId);
    if (run.added + run.removed + run.reenrichMarked + run.changed > 0) await tilesChanged(db, { kind: 'layer', layerId: a.layerId });
    // Watchlist (docs/notifications.md): the run's history rows of followed parcels → notifications.
    await notifyFollowers({ siruta: run.siruta });
  }
  return run;
}

/** Spec 2.2: the UAT keeps the remote layer's newest LAST_UPDATED_DTM (ISO text) for incremental sync. */
async function recordUatLastUpdated(db: Db, siruta: number, layerId: string): Promise<void> {
  const ms = await lastUpdatedWatermark(db, siruta, layerId);
  if (ms === null) return;
  await db.query(`UPDATE gis_uats SET last_updated_dtm = $2 WHERE siruta = $1`, [siruta, new Date(ms).toISOString()]);
}
