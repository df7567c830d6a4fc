/**
 * GDAL from PostGIS: every export file is written by `ogr2ogr` reading `PG:` with SQL, never by
 * hand. The connection settings go to ogr2ogr through libpq's environment variables, not argv
 * (`ps` shows argv to every user of the machine).
 */
import { spawn } from 'node:child_process';
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
}

/** Default ceiling of one ogr2ogr run; a 200,000-parcel UAT takes well under a minute. */
export const OGR_TIMEOUT_MS = 15 * 60_000;

/** Runs `ogr2ogr args...`; resolves with stderr (warnings), rejects with GdalError. */
export function ogr2ogr(args: string[], opts: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(config.tiles.ogr2ogr, args, {
      env: { ...process.env, ...pgConnectionEnv(opts.dbUrl) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (child.pid) opts.onSpawn?.(child.pid);
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // Keep the tail only: a warning per feature must not grow without bound.
      stderr = (stderr + chunk).slice(-16_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? OGR_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new GdalError(`ogr2ogr could not start: ${err.message}`, stderr, null));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stderr.trim());
      else reject(new GdalError(`ogr2ogr failed (${signal ?? `exit ${code}`}): ${lastLine(stderr)}`, stderr.trim(), code));
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter((l) => l.trim() !== '');
  return lines.at(-1) ?? 'no message';
}
