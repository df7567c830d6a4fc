/**
 * GDAL from PostGIS: every export file is written by `ogr2ogr` reading `PG:` with SQL, never by
 * hand. The connection settings go to ogr2ogr through libpq's environment variables, not argv
 * (`ps` shows argv to every user of the machine).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { config } from '../config';

/** libpq settings of the configured store. */
export function pgConnectionEnv(url: string = config.db.url): Record<string, string> {
  const u = new URL(url);
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

/** Runs `ogr2ogr args...`; resolves with stderr (warnings), rejects with GdalError. */
export function ogr2ogr(args: string[], opts: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new GdalError('ogr2ogr not started: the export was cancelled', '', null));
    const pgOptions = [process.env.PGOPTIONS, opts.pgOptions].filter((o) => o && o.trim() !== '').join(' ');
    const child = spawn(config.tiles.ogr2ogr, args, {
      env: { ...process.env, ...pgConnectionEnv(opts.dbUrl), ...(pgOptions ? { PGOPTIONS: pgOptions } : {}) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (child.pid && opts.nice) {
      try {
        os.setPriority(child.pid, opts.nice);
      } catch {
        // The process may already have ended, or the platform refuses: a priority is only a hint.
      }
    }
    if (child.pid) opts.onSpawn?.(child.pid);
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // Keep the tail only: a warning per feature must not grow without bound.
      stderr = (stderr + chunk).slice(-16_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? OGR_TIMEOUT_MS);
    const cancel = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', cancel, { once: true });
    child.on('error', (err) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', cancel);
      reject(new GdalError(`ogr2ogr could not start: ${err.message}`, stderr, null));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', cancel);
      if (code === 0) resolve(stderr.trim());
      else reject(new GdalError(`ogr2ogr failed (${signal ?? `exit ${code}`}): ${lastLine(stderr)}`, stderr.trim(), code));
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter((l) => l.trim() !== '');
  return lines.at(-1) ?? 'no message';
}
