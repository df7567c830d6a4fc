/**
 * The PMTiles overview builder: the default target of the rebuild webhook (spec 3.6,
 * EXTERNAL-SERVICES.md "Tile archive"). UAT boundaries and parcels, carrying only siruta,
 * cadastral_ref and object_id (spec 2.1), go from the views tiles.overview_uats/_parcels through
 * GDAL's MBTiles (MVT) writer, then through the Protomaps converter into a PMTiles v3 archive,
 * which is uploaded to object storage. GDAL 3.6 has no PMTiles driver, hence the two steps.
 *
 * The build runs as the `overviewArchiveBuild` workflow on the exports queue; its fixed workflow
 * id is the "a build runs" state the webhook answers 409 for (temporal/tileArchive.ts).
 */
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { config, projectRoot } from '../config';
import { childLogger } from '../log';
import { uploadArchive } from './archiveStore';
import { makeTempDir } from '../storage/service';

const run = promisify(execFile);
const log = childLogger('tiles');

/** Zoom ranges of the archive: UAT outlines for the overview, parcels from z10, nothing past z14. */
export const OVERVIEW_LAYERS = {
  uats: { view: 'tiles.overview_uats', minzoom: 0, maxzoom: 12 },
  parcels: { view: 'tiles.overview_parcels', minzoom: 10, maxzoom: 14 },
} as const;
export const OVERVIEW_MAXZOOM = 14;

const BUILD_LOCK = `hashtext('geoportal:tiles:overview-build')`;
/** A national build takes minutes; anything past this is stuck and gets killed. */
const STEP_TIMEOUT_MS = 25 * 60 * 1000;

export type BuildPhase = 'export' | 'convert' | 'upload' | 'done';

export interface BuildRecord {
  id: string;
  status: 'running' | 'done' | 'failed';
  phase: string | null;
  startedAt: string;
  finishedAt: string | null;
  sizeBytes: number | null;
  uatCount: number | null;
  parcelCount: number | null;
  error: string | null;
}

function pgConnectionString(): { dsn: string; password: string } {
  const u = new URL(config.db.url);
  const parts = [
    `host=${u.hostname}`,
    `port=${u.port || '5432'}`,
    `dbname=${decodeURIComponent(u.pathname.slice(1))}`,
    `user=${decodeURIComponent(u.username)}`,
    `tables=${OVERVIEW_LAYERS.uats.view},${OVERVIEW_LAYERS.parcels.view}`,
  ];
  // The password travels in PGPASSWORD, never on a command line other users can list.
  return { dsn: `PG:${parts.join(' ')}`, password: decodeURIComponent(u.password) };
}

async function setPhase(db: pg.Pool, id: string, phase: BuildPhase, opts: BuildOptions): Promise<void> {
  opts.onProgress?.({ phase });
  await db.query(`UPDATE tile_archive_builds SET phase = $2 WHERE id = $1`, [id, phase]);
}

async function exportMbtiles(target: string): Promise<void> {
  const { dsn, password } = pgConnectionString();
  const conf = Object.fromEntries(
    Object.entries(OVERVIEW_LAYERS).map(([name, l]) => [l.view, { target_name: name, minzoom: l.minzoom, maxzoom: l.maxzoom }]),
  );
  await run(
    config.tiles.ogr2ogr,
    [
      '-f', 'MBTILES', target, dsn,
      '-dsco', 'MINZOOM=0',
      '-dsco', `MAXZOOM=${OVERVIEW_MAXZOOM}`,
      '-dsco', `CONF=${JSON.stringify(conf)}`,
      '-dsco', 'NAME=overview',
      '-dsco', 'DESCRIPTION=Limite UAT și parcele (siruta, cadastral_ref, object_id)',
    ],
    { env: { ...process.env, PGPASSWORD: password }, timeout: STEP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
  );
}

async function convertToPmtiles(source: string, target: string): Promise<void> {
  const python = path.join(config.tiles.pmtilesVenv, 'bin', 'python');
  const script = path.join(projectRoot, 'scripts', 'mbtiles-to-pmtiles.py');
  await run(python, [script, source, target, String(OVERVIEW_MAXZOOM), new Date().toISOString()], { timeout: STEP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
}

async function counts(db: pg.Pool): Promise<{ uats: number; parcels: number }> {
  const r = await db.query<{ uats: number; parcels: number }>(
    `SELECT (SELECT count(*)::int FROM ${OVERVIEW_LAYERS.uats.view}) AS uats,
            (SELECT count(*)::int FROM ${OVERVIEW_LAYERS.parcels.view}) AS parcels`,
  );
  return r.rows[0];
}

function describe(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(err)).slice(0, 2000);
}

/**
 * Why a build failed, in words the infrastructure page shows (issue 42: "eșuată" alone said
 * nothing). The tool's own output (English, server paths) stays in the log.
 */
export function failureReason(err: unknown): string {
  const e = err as { code?: string; signal?: string; killed?: boolean };
  const text = describe(err);
  if (e.code === 'ENOSPC' || /no space left/i.test(text)) return 'spațiu insuficient pe disc pentru arhivă';
  if (e.killed || e.signal === 'SIGTERM' || e.signal === 'SIGKILL' || /timed? ?out/i.test(text)) return 'a depășit timpul permis și a fost oprită';
  if (/ECONNREFUSED|connection refused|could not connect/i.test(text)) return 'baza de date sau stocarea nu a răspuns';
  return 'programul de conversie a raportat o eroare (detaliile sunt în jurnalul serverului)';
}

/** Runs one build to the end (the caller holds the lock). */
async function runBuild(db: pg.Pool, id: string, opts: BuildOptions): Promise<void> {
  const dir = await makeTempDir('overview');
  try {
    const c = await counts(db);
    await db.query(`UPDATE tile_archive_builds SET uat_count = $2, parcel_count = $3 WHERE id = $1`, [id, c.uats, c.parcels]);
    const mbtiles = path.join(dir, 'overview.mbtiles');
    const pmtiles = path.join(dir, 'overview.pmtiles');
    await setPhase(db, id, 'export', opts);
    await exportMbtiles(mbtiles);
    await setPhase(db, id, 'convert', opts);
    await convertToPmtiles(mbtiles, pmtiles);
    await setPhase(db, id, 'upload', opts);
    const size = (await stat(pmtiles)).size;
    await uploadArchive(createReadStream(pmtiles), size);
    await db.query(
      `UPDATE tile_archive_builds SET status = 'done', phase = 'done', finished_at = now(), size_bytes = $2 WHERE id = $1`,
      [id, size],
    );
    log.info({ buildId: id, sizeBytes: size, ...c }, 'overview archive built');
  } catch (err) {
    log.error({ buildId: id, err: describe(err) }, 'overview archive build failed');
    await db.query(`UPDATE tile_archive_builds SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1`, [id, failureReason(err)]);
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How often a build waiting for another one's lock tries again. */
const LOCK_RETRY_MS = 1_000;

export interface BuildOptions {
  /** Called while waiting for another build's lock and at each phase (an activity heartbeats). */
  onProgress?: (state: { phase: BuildPhase | 'waiting' }) => void;
}

/**
 * Runs one overview build to the end and returns its record id. The build is a Temporal workflow
 * (workflows/overviewArchiveBuild.ts, one at a time by its fixed id); the advisory lock only
 * keeps two attempts of it (a retry beside a worker that is not dead yet) from overlapping: the
 * second waits for the first.
 */
export async function buildOverviewArchive(db: pg.Pool, opts: BuildOptions = {}): Promise<string> {
  const lockClient = await db.connect();
  try {
    for (;;) {
      const r = await lockClient.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${BUILD_LOCK}) AS ok`);
      if (r.rows[0].ok) break;
      opts.onProgress?.({ phase: 'waiting' });
      await new Promise((res) => setTimeout(res, LOCK_RETRY_MS));
    }
    try {
      // A row left 'running' by a crashed attempt is finished off: nobody holds the lock for it.
      await db.query(
        `UPDATE tile_archive_builds SET status = 'failed', finished_at = now(), error = 'întreruptă (procesul s-a oprit)' WHERE status = 'running'`,
      );
      const ins = await db.query<{ id: string }>(`INSERT INTO tile_archive_builds (phase) VALUES ('export') RETURNING id`);
      const buildId = ins.rows[0].id;
      await runBuild(db, buildId, opts);
      return buildId;
    } finally {
      await lockClient.query(`SELECT pg_advisory_unlock(${BUILD_LOCK})`).catch(() => undefined);
    }
  } finally {
    lockClient.release();
  }
}

function toRecord(r: Record<string, unknown>): BuildRecord {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
  return {
    id: String(r.id),
    status: r.status as BuildRecord['status'],
    phase: (r.phase as string | null) ?? null,
    startedAt: iso(r.started_at) ?? '',
    finishedAt: iso(r.finished_at),
    sizeBytes: r.size_bytes === null ? null : Number(r.size_bytes),
    uatCount: (r.uat_count as number | null) ?? null,
    parcelCount: (r.parcel_count as number | null) ?? null,
    error: (r.error as string | null) ?? null,
  };
}

export async function recentBuilds(db: pg.Pool, limit = 10): Promise<BuildRecord[]> {
  const r = await db.query(`SELECT * FROM tile_archive_builds ORDER BY started_at DESC LIMIT $1`, [limit]);
  return r.rows.map(toRecord);
}
