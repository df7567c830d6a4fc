/** Entry point of the web process: API, tiles, sign-in and the Remix UI on one port. */
import { createApp } from './app';
import { pageGuard } from './auth';
import { createWebHandlers } from './web';
import { config, refuseUnsafeProductionStart } from '../domain/config';
import { logger } from '../domain/log';
import { applyKeepAlive } from '../domain/net/keepAlive';
import { getTemporalClient } from '../temporal/client';
import { ensureOverviewArchive } from '../temporal/tileArchive';
import { sweepStaleTempDirs } from '../domain/storage/tempDirs';
import { processStore } from '../domain/db/store';
import { trackPools } from '../domain/metrics';

refuseUnsafeProductionStart();
// The one store of the process, handed to the routers, to every page's loader and to the job starts.
const store = processStore();
trackPools({ pool: store.pool, tilePool: store.tilePool });
const app = createApp({ store, web: [pageGuard, ...(await createWebHandlers(store))] });
const server = applyKeepAlive(app.listen(config.app.port, () => {
  logger.info({ url: config.app.publicUrl }, 'geoportal listening');
  // Upload and export directories a killed predecessor left behind (issue 13).
  sweepStaleTempDirs().then((removed) => removed.length && logger.info({ removed }, 'stale temporary directories removed'));
  // EXTERNAL-SERVICES.md "Tile archive": the overview exists on a fresh install. Only when the
  // builder is ours (no TILE_REBUILD_WEBHOOK_URL pointing elsewhere) and the archive is missing.
  if (config.tiles.embeddedBuilder) {
    getTemporalClient().then((client) => ensureOverviewArchive(store.pool, client)).then(
      (outcome) => logger.info({ outcome }, 'overview archive check'),
      (err: unknown) => logger.warn({ err: (err as Error).message }, 'overview archive check failed'),
    );
  }
}));

function stop(): void {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
