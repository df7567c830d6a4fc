/**
 * Per-source data versions (table tile_versions). Every sync bumps the sources it touched; the
 * version is part of the tile cache key and of the ETag, so a bump invalidates both at once in
 * every process without any message passing. A process trusts its copy for
 * config.tiles.versionTtlMs (default 1 s), and a bump made in this process is seen at once.
 *
 * The copy is refreshed in the background, not on the request path: while tiles are being asked
 * for, a timer re-reads the table every half TTL, so a tile request never waits for this query
 * (a cached tile is answered in well under a millisecond, the read would double that). After
 * REFRESH_IDLE_STOP_MS without a request the timer stops; the first request after that reads
 * the table inline once, which also happens on the very first request.
 *
 * Each server has its own copy (the primary, and a read replica when the readers use one): a tile's
 * version is read from the server that renders it (domain/db/readers.ts).
 */
import pg from 'pg';
import { config } from '../config';
import type { Db } from '../db/pool';
import { TILE_SOURCE_NAMES, tileSourcesChangedBy, type TileChange } from './sources';

export interface SourceVersion {
  version: number;
  /** Epoch ms of the last bump; 0 when the source was never bumped. */
  bumpedAt: number;
}

const NEVER: SourceVersion = { version: 0, bumpedAt: 0 };
/** The background refresh stops when no tile was asked for this long. */
const REFRESH_IDLE_STOP_MS = 60_000;

/**
 * What a process knows of one server's versions (the primary's, and a read replica's when the
 * readers use one, domain/db/readers.ts): a tile's version is read from the server its tile is
 * rendered from, so a replica's older data is never cached under the primary's newer version.
 */
interface Known {
  /** `at`: when the read that produced it started (its age is never understated). */
  memo?: { at: number; generation: number; versions: Map<string, SourceVersion> };
  inflight?: { generation: number; read: Promise<Map<string, SourceVersion>> };
  lastUse: number;
  refresher?: NodeJS.Timeout;
}

const known = new WeakMap<Db, Known>();
/** Bumped on every local bump/reset: a copy read, or a read started, before one is not used. */
let generation = 0;

function knownOf(db: Db): Known {
  let k = known.get(db);
  if (!k) known.set(db, (k = { lastUse: 0 }));
  return k;
}

async function readAll(db: Db): Promise<Map<string, SourceVersion>> {
  const r = await db.query<{ source: string; version: string; bumped_ms: string }>(
    `SELECT source, version, (extract(epoch FROM bumped_at) * 1000)::bigint AS bumped_ms FROM tile_versions`,
  );
  return new Map(r.rows.map((row) => [row.source, { version: Number(row.version), bumpedAt: Number(row.bumped_ms) }]));
}

/** One read at a time per server; concurrent callers share it. */
function refresh(db: Db): Promise<Map<string, SourceVersion>> {
  const k = knownOf(db);
  if (k.inflight?.generation === generation) return k.inflight.read;
  const startedAt = Date.now();
  const startedGeneration = generation;
  const p = readAll(db)
    .then((versions) => {
      if (generation === startedGeneration) k.memo = { at: startedAt, generation: startedGeneration, versions };
      return versions;
    })
    .finally(() => {
      if (k.inflight?.read === p) k.inflight = undefined;
    });
  k.inflight = { generation: startedGeneration, read: p };
  return p;
}

/** Keeps the copy fresh while tiles are asked for (see the module comment). */
function scheduleRefresh(db: Db): void {
  const ttl = config.tiles.versionTtlMs;
  const k = knownOf(db);
  // Only on a pool: a single client handed in by a caller may be released or ended meanwhile.
  if (k.refresher || ttl <= 0 || !(db instanceof pg.Pool)) return;
  const due = k.memo?.generation === generation ? Math.max(0, k.memo.at + ttl / 2 - Date.now()) : 0;
  k.refresher = setTimeout(() => {
    k.refresher = undefined;
    if (Date.now() - k.lastUse > REFRESH_IDLE_STOP_MS) return;
    // On failure (database away, pool closed) the loop stops; a request that finds the copy
    // stale reads inline and starts it again.
    refresh(db).then(
      () => scheduleRefresh(db),
      () => undefined,
    );
  }, due);
  // Never what keeps a process (a test, a script) alive.
  k.refresher.unref();
}

/** The current version of every source (missing rows read as version 0). */
export async function tileVersions(db: Db): Promise<Map<string, SourceVersion>> {
  const now = Date.now();
  const k = knownOf(db);
  k.lastUse = now;
  const fresh = k.memo && k.memo.generation === generation && now - k.memo.at < config.tiles.versionTtlMs ? k.memo.versions : undefined;
  const versions = fresh ?? (await refresh(db));
  scheduleRefresh(db);
  return versions;
}

export async function tileVersion(db: Db, source: string): Promise<SourceVersion> {
  return (await tileVersions(db)).get(source) ?? NEVER;
}

/**
 * Increments the data version of the given sources (default: all of them) and returns the new
 * versions. Domain writes call `tilesChanged` instead; this is for tools and tests.
 */
export async function bumpTileVersion(db: Db, sources: readonly string[] = TILE_SOURCE_NAMES): Promise<Record<string, number>> {
  const unknown = sources.filter((s) => !TILE_SOURCE_NAMES.includes(s));
  if (unknown.length) throw new Error(`Unknown tile source(s): ${unknown.join(', ')}`);
  const r = await db.query<{ source: string; version: string }>(
    `INSERT INTO tile_versions (source, version, bumped_at)
     SELECT s, 1, clock_timestamp() FROM unnest($1::text[]) AS s
     ON CONFLICT (source) DO UPDATE SET version = tile_versions.version + 1, bumped_at = clock_timestamp()
     RETURNING source, version`,
    [[...new Set(sources)]],
  );
  forgetVersions();
  return Object.fromEntries(r.rows.map((row) => [row.source, Number(row.version)]));
}

/**
 * The one call a domain write makes after it changed what tiles show: bumps the sources the
 * change touches (tileSourcesChangedBy). Sync run close, enrichment and the UAT catalogue call it.
 */
export async function tilesChanged(db: Db, change: TileChange): Promise<void> {
  await bumpTileVersion(db, tileSourcesChangedBy(change));
}

/** A bump is seen at once in this process: every server's copy is read again (a replica's, once replayed). */
function forgetVersions(): void {
  generation++;
}

