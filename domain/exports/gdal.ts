/**
 * GDAL from PostGIS: every export file is written by `ogr2ogr` reading `PG:` with SQL, never by
 * hand. The connection settings go to ogr2ogr through libpq's environment variables, not argv
 * (`ps` shows argv to every user of the machine).
 */
import { config } from '../config';
import { runTool, type ToolRun } from '../childProcess';

/** libpq settings of the configured store. */
export function pgConnectionEnv(url: string = config.db.url): Record<string, string> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    // Node's error carries the whole address as its `input`, password included, into any log of it.
    throw new Error('DATABASE_URL is not an address ogr2ogr can read: postgres://user:password@host:port/database');
  }
  return {
    PGHOST: decodeURIComponent(u.hostname),
    PGPORT: u.port || '5432',
    PGUSER: decodeURIComponent(u.username),
    PGPASSWORD: decodeURIComponent(u.password),
    PGDATABASE: decodeURIComponent(u.pathname.replace(/^\//, '')),
    // The store speaks UTF-8; GDAL must not transcode diacritics on the way.
    PGCLIENTENCODING: 'UTF8',
  };
}

/** The `PG:` datasource name; credentials stay in the environment (pgConnectionEnv). */
export function pgDatasource(url: string = config.db.url): string {
  const db = pgConnectionEnv(url).PGDATABASE ?? '';
  return `PG:dbname='${db.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export class GdalError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'GdalError';
  }
}

export interface RunOptions {
  dbUrl?: string;
  /** Kills ogr2ogr after this long; a stuck conversion must not hold a worker slot forever. */
  timeoutMs?: number;
  /** Reports the child's pid (the bench samples its memory). */
  onSpawn?: (pid: number) => void;
  /**
   * Settings of ogr2ogr's PostgreSQL session (libpq `PGOPTIONS`, appended to any inherited), e.g.
   * EXPORT_SESSION_OPTIONS.
   */
  pgOptions?: string;
  /**
   * Niceness of the ogr2ogr process (0 = as this process). A build runs its GeoPackage at 0 and the
   * side conversions (CSV, DXF) lower, so they take the CPU the GeoPackage leaves free.
   */
  nice?: number;
  /** Aborting kills ogr2ogr at once (a client that went away); a run not started yet never starts. */
  signal?: AbortSignal;
}

/**
 * Session settings of export reads: no JIT. An export query streams every row of a UAT through
 * jsonb and PostGIS function calls, which JIT cannot speed up, but its cost estimate (PostGIS
 * functions are declared expensive) passes jit_above_cost, so each query paid 0.4-1.3 s of LLVM
 * inlining and optimisation for nothing (EXPLAIN ANALYZE, 200,000 parcels).
 */
export const EXPORT_SESSION_OPTIONS = '-c jit=off';

/** Niceness of the side conversions of a build (CSV, DXF). */
export const SIDE_CONVERSION_NICE = 19;

/** Default ceiling of one ogr2ogr run; a 200,000-parcel UAT takes well under a minute. */
export const OGR_TIMEOUT_MS = 15 * 60_000;

/**
 * Runs `ogr2ogr args...` through the one child-process runner (memory-limited, its process group
 * killed at the deadline or when `signal` aborts); resolves with stderr (warnings), rejects with
 * GdalError.
 */
export async function ogr2ogr(args: string[], opts: RunOptions = {}): Promise<string> {
  if (opts.signal?.aborted) throw new GdalError('ogr2ogr not started: the export was cancelled', '', null);
  const pgOptions = [process.env.PGOPTIONS, opts.pgOptions].filter((o) => o && o.trim() !== '').join(' ');
  let run: ToolRun;
  try {
    run = await runTool(config.tiles.ogr2ogr, args, {
      timeoutMs: opts.timeoutMs ?? OGR_TIMEOUT_MS,
      memoryKind: 'data',
      env: { ...process.env, ...pgConnectionEnv(opts.dbUrl), ...(pgOptions ? { PGOPTIONS: pgOptions } : {}) },
      nice: opts.nice,
      signal: opts.signal,
      onSpawn: opts.onSpawn,
    });
  } catch (err) {
    throw new GdalError(`ogr2ogr could not start: ${(err as Error).message}`, '', null);
  }
  if (run.code === 0) return run.stderr.trim();
  const how = run.timedOut ? 'timed out' : run.aborted ? 'cancelled' : `exit ${run.code}`;
  throw new GdalError(`ogr2ogr failed (${how}): ${lastLine(run.stderr)}`, run.stderr.trim(), run.code);
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter((l) => l.trim() !== '');
  return lines.at(-1) ?? 'no message';
}
