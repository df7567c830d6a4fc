/**
 * The tiles' door (docs/architecture.md "Areas"). The object of `createTilesService`, built once per
 * process by `domain/services.ts`, holds what reads or builds on the process's store: the data
 * versions, the overview archive's builds and its build (the monitor, api/routes/geoportalTiles.ts
 * and the web page through temporal/tileMonitor.ts, and the build activity).
 *
 * The tile request path (api/routes/tiles.ts) and the areas that change tiled data call plain
 * functions that take their store or readers explicitly: a tile and its version are read on
 * whichever server `readOn` picks for that request (domain/db/readers.ts), and a sync or an
 * enrichment bumps the versions inside its own work. Its pure rules are in `rules.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import { buildOverviewArchive, recentBuilds, type BuildOptions } from './archive';
import { tileCacheStats } from './mvt';
import { tileVersions } from './versions';

// The tile request path and the archive (S3): stateless, their store or readers passed in.
export { archiveInfo, readArchive } from './archiveStore';
export { clearTileCache, etagMatches, gatewayTilePlan, getTile, statementFor, tileTag } from './mvt';
export { proxyEnabled, proxyTileServer } from './proxy';
export { TILE_SOURCE_NAMES, tileSource } from './sources';
export { tileCatalog, tileJson } from './tilejson';
// What a change of tiled data calls (a sync, the catalogue, an enrichment), on its own connection.
export { bumpTileVersion, tileVersion, tileVersions, tilesChanged } from './versions';

export type { BuildRecord } from './archive';
export type { ArchiveInfo } from './archiveStore';
export type { TileAddress } from './mvt';
export type { ProxiedAnswer } from './proxy';
export type { TileSourceRecord } from './sources';

export function createTilesService({ store }: Pick<AreaDeps, 'store'>) {
  return {
    /** Every source's data version. */
    versions: () => tileVersions(store.pool),
    /** The overview archive's latest builds, newest first. */
    recentBuilds: (limit = 10) => recentBuilds(store.pool, limit),
    /** This process's tile cache: entries, bytes, hits, misses. */
    cacheStats: tileCacheStats,
    /** Builds the overview archive and uploads it; the build's id. */
    buildOverviewArchive: (opts: BuildOptions = {}) => buildOverviewArchive(store.pool, opts),
  };
}

export type TilesService = ReturnType<typeof createTilesService>;
