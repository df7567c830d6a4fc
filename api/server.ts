/**
 * Entry point of the web process: API, tiles, sign-in and the Remix UI on one port. With WEB=N
 * (N > 1) this process is the primary of Node's cluster: it forks N web processes that share the
 * port (connections are dealt round robin) and forks a new one when one dies; its own job is only
 * that. Shared mode (config.app.sharedLimits) keeps their limits and session caches one.
 */
import cluster from 'node:cluster';
import { createApp } from './app';
import { pageGuard } from './auth';
import { followSessionChanges } from './auth/sessionStore';
import { createWebHandlers } from './web';
import { config, refuseUnsafeProductionStart } from '../domain/config';
import { logger } from '../domain/log';
import { applyKeepAlive } from '../domain/net/keepAlive';
import { getTemporalClient } from '../temporal/client';
import { ensureOverviewArchive } from '../temporal/tileArchive';
import { processStore } from '../domain/db/store';
import { processServices } from '../temporal/services';
import { serveClusterScrapes, trackPools } from '../domain/metrics';
import { shareWorkSlots } from '../domain/concurrency';

refuseUnsafeProductionStart();

/** A worker that dies sooner than this after its start is not restarted at once (a crash loop). */
const RESTART_DELAY_MS = 1000;

if (cluster.isPrimary && config.app.webProcesses > 1) {
  let stopping = false;
  for (let i = 0; i < config.app.webProcesses; i++) cluster.fork();
  // A scrape of /metrics reaches one web process; it asks here for all of them.
  serveClusterScrapes();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (!Object.keys(cluster.workers ?? {}).length) process.exit(0);
      return;
    }
    logger.warn({ pid: worker.process.pid, code, signal }, 'web process ended; starting another');
    setTimeout(() => !stopping && cluster.fork(), RESTART_DELAY_MS);
  });
  const stopAll = () => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), 6000).unref();
  };
  process.on('SIGTERM', stopAll);
  process.on('SIGINT', stopAll);
  logger.info({ processes: config.app.webProcesses, url: config.app.publicUrl }, 'geoportal web processes starting');
} else {
  await serve();
}

async function serve(): Promise<void> {
  // The one store of the process, handed to the routers, to every page's loader and to the job starts.
  const store = processStore();
  trackPools({ pool: store.pool, tilePool: store.tilePool });
  const stopFollowing = config.app.sharedLimits ? followSessionChanges(store.pool) : undefined;
  if (config.app.sharedLimits) shareWorkSlots(store.pool, config.app.workSlotLeaseMs);
  // Every area's service, built once: the routers and the pages' loaders call the same objects.
  const services = processServices(store);
  const app = createApp({ store, services, web: [pageGuard, ...(await createWebHandlers(store, services))] });
  const server = applyKeepAlive(app.listen(config.app.listenPort, () => {
    logger.info({ url: config.app.publicUrl, shared: config.app.sharedLimits }, 'geoportal listening');
    // Upload and export directories a killed predecessor left behind (issue 13); the age guard
    // spares a sibling web process's live ones.
    services.storage.keepSweepingTempDirs((removed) => logger.info({ removed }, 'stale temporary directories removed'));
    // EXTERNAL-SERVICES.md "Tile archive": the overview exists on a fresh install. Only when the
    // builder is ours (no TILE_REBUILD_WEBHOOK_URL pointing elsewhere) and the archive is missing;
    // asked by the first web process only.
    if (config.tiles.embeddedBuilder && (cluster.isPrimary || cluster.worker?.id === 1)) {
      getTemporalClient().then((client) => ensureOverviewArchive(client)).then(
        (outcome) => logger.info({ outcome }, 'overview archive check'),
        (err: unknown) => logger.warn({ err: (err as Error).message }, 'overview archive check failed'),
      );
    }
  }));

  const stop = (): void => {
    void stopFollowing?.();
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
