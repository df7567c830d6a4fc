/**
 * Per-source data versions (table tile_versions). Every sync bumps the sources it touched; the
 * version is part of the tile cache key and of the ETag, so a bump invalidates both at once in
 * every process without any message passing. A process keeps its copy for config.tiles.versionTtlMs
 * (default 1 s), so a burst of tile requests costs one small query, not one per tile; a bump made
 * in this process is seen at once.
 */
import { config } from '../config';
import { getPool, type Db } from '../db/pool';
import { TILE_SOURCE_NAMES } from './sources';

export interface SourceVersion {
  version: number;
  /** Epoch ms of the last bump; 0 when the source was never bumped. */
  bumpedAt: number;
}

const NEVER: SourceVersion = { version: 0, bumpedAt: 0 };

let memo: { at: number; versions: Map<string, SourceVersion> } | undefined;
let inflight: Promise<Map<string, SourceVersion>> | undefined;

async function readAll(db: Db): Promise<Map<string, SourceVersion>> {
  const r = await db.query<{ source: string; version: string; bumped_ms: string }>(
    `SELECT source, version, (extract(epoch FROM bumped_at) * 1000)::bigint AS bumped_ms FROM tile_versions`,
  );
  return new Map(r.rows.map((row) => [row.source, { version: Number(row.version), bumpedAt: Number(row.bumped_ms) }]));
}

/** The current version of every source (missing rows read as version 0). */
export async function tileVersions(db: Db = getPool()): Promise<Map<string, SourceVersion>> {
  if (memo && Date.now() - memo.at < config.tiles.versionTtlMs) return memo.versions;
  // Concurrent tile requests share one read.
  inflight ??= readAll(db)
    .then((versions) => {
      memo = { at: Date.now(), versions };
      return versions;
    })
    .finally(() => {
      inflight = undefined;
    });
  return inflight;
}

export async function tileVersion(source: string, db: Db = getPool()): Promise<SourceVersion> {
  return (await tileVersions(db)).get(source) ?? NEVER;
}

/**
 * Increments the data version of the given sources (default: all of them) and returns the new
 * versions. Call after any write that changes what tiles show: a layer sync (see
 * tileSourcesForLayer), enrichment (ENRICHMENT_TILE_SOURCES), a UAT refresh.
 */
export async function bumpTileVersion(
  sources: readonly string[] = TILE_SOURCE_NAMES,
  db: Db = getPool(),
): Promise<Record<string, number>> {
  const unknown = sources.filter((s) => !TILE_SOURCE_NAMES.includes(s));
  if (unknown.length) throw new Error(`Unknown tile source(s): ${unknown.join(', ')}`);
  const r = await db.query<{ source: string; version: string }>(
    `INSERT INTO tile_versions (source, version, bumped_at)
     SELECT s, 1, clock_timestamp() FROM unnest($1::text[]) AS s
     ON CONFLICT (source) DO UPDATE SET version = tile_versions.version + 1, bumped_at = clock_timestamp()
     RETURNING source, version`,
    [[...new Set(sources)]],
  );
  memo = undefined;
  return Object.fromEntries(r.rows.map((row) => [row.source, Number(row.version)]));
}

/** Forget the cached versions (tests, or after a database switch). */
export function resetTileVersionMemo(): void {
  memo = undefined;
}
