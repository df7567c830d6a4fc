/**
 * Worker process: `npx tsx workers/main.ts` (the stack starts it after PostgreSQL and Temporal).
 * Starts one Worker per task queue with registered work (or WORKER_QUEUES), registers the
 * schedules, and stops gracefully on SIGINT/SIGTERM: in-flight activities get the grace time,
 * then the pool and connections close.
 */
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString, type LogLevel } from '@temporalio/worker';
import { config, refuseUnsafeProductionStart } from '../domain/config';
import { processStore } from '../domain/db/store';
import { childLogger } from '../domain/log';
import { closeTemporalClient, getTemporalClient } from '../temporal/client';
import { isTaskQueueName, type TaskQueueName } from '../temporal/common/queues';
import { ensureSchedules } from '../temporal/schedules';
import { createQueueWorkers, workerIdentity } from './start';
import { freeLoopbackPort } from '../domain/net/loopback';
import { serveWorkerMetrics, workerMetricsPort } from './metrics';
import { registerBackupGauges, trackPools } from '../domain/metrics';
import { ensureBackupRepository, lastBackup, pgDataDir, stackTarget } from '../domain/backup/service';
import { processServices } from '../temporal/services';

const log = childLogger('workers');

const pinoLevel: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

function installRuntime(sdkMetricsPort: number): void {
  const sdk = childLogger('temporal-sdk');
  Runtime.install({
    // The SDK's and the Rust core's logs go through pino (redaction, one format for the stack).
    logger: new DefaultLogger('INFO', ({ level, message, meta }) => sdk[pinoLevel[level]](meta ?? {}, message)),
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'WARN' }) },
      // Read by our metrics endpoint and served beside our own (workers/metrics.ts); `_total`
      // on counters and seconds for durations, as Prometheus names them (promtool's lint).
      metrics: { prometheus: { bindAddress: `127.0.0.1:${sdkMetricsPort}`, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } },
    },
    // The Runtime calls shutdown() on every Worker on these signals; run() then resolves.
    shutdownSignals: ['SIGINT', 'SIGTERM'],
  });
}

function selectedQueues(): TaskQueueName[] | undefined {
  const wanted = config.workers.queues;
  if (wanted.length === 0) return undefined;
  const unknown = wanted.filter((q) => !isTaskQueueName(q));
  if (unknown.length) throw new Error(`WORKER_QUEUES names unknown task queues: ${unknown.join(', ')}`);
  return wanted as TaskQueueName[];
}

/** The stack starts us right after Temporal's health check, but a restarting server deserves patience. */
async function connectWithRetry(deadlineMs = 30_000): Promise<NativeConnection> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await NativeConnection.connect({ address: config.temporal.address });
    } catch (err) {
      if (Date.now() > until) throw err;
      log.warn({ address: config.temporal.address, err: (err as Error).message }, 'Temporal not reachable yet, retrying');
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function main(): Promise<void> {
  refuseUnsafeProductionStart();
  const sdkMetricsPort = await freeLoopbackPort();
  installRuntime(sdkMetricsPort);
  const started = Date.now();
  // A worker without its metrics (the port still held by a predecessor shutting down) still
  // works; Prometheus shows the target down.
  const metricsServer = await serveWorkerMetrics(workerMetricsPort(), sdkMetricsPort).catch((err: unknown) => {
    log.error({ err: (err as Error).message, port: workerMetricsPort() }, 'worker metrics not served');
    return undefined;
  });
  const connection = await connectWithRetry();
  // The one store of the process, handed to every activity factory.
  const store = processStore();
  trackPools({ pool: store.pool, tilePool: store.tilePool });
  // Every area's service, built once: the activities and the start-up seed below call the same objects.
  const services = processServices(store);
  // The backup gauges read the repository the backup job writes (docs/operations.md "Backups").
  registerBackupGauges(async () => {
    const b = await lastBackup();
    return b.lastAt ? { lastAt: new Date(b.lastAt), sizeBytes: b.sizeBytes ?? undefined } : {};
  });
  let exitCode = 0;
  try {
    const workers = await createQueueWorkers({
      connection,
      namespace: config.temporal.namespace,
      deps: { store, services },
      queues: selectedQueues(),
    });
    if (workers.size === 0) throw new Error('No task queue with registered workflows or activities selected');

    const outcome = await ensureSchedules(await getTemporalClient());
    log.info({ schedules: outcome }, 'schedules registered');
    // What a killed predecessor (or a step that could not clean up) left behind, swept hourly, and
    // the expiry of old export archives (issue 13).
    services.storage.keepSweepingTempDirs((removed) => log.info({ removed }, 'stale temporary directories removed'));
    services.storage.ensureExportLifecycle().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'export bucket lifecycle not set'));
    // A database on another host (the compose deployment): no launcher made the backup repository,
    // so the workers do, through its pgBackRest TLS server (idempotent; docs/operations.md "Backups").
    if (config.backup.pgHost) {
      ensureBackupRepository(stackTarget(pgDataDir()))
        .then(() => log.info({ stanza: config.backup.stanza }, 'backup repository ready'))
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'backup repository not ready'));
    }
    // The weekend queue's default cities, once the catalogue knows them (docs/scheduling.md).
    services.scheduling.seedWeekendQueue(config.scheduling.weekendDefaultCities)
      .then((r) => r.added && log.info({ added: r.added }, 'weekend queue seeded'))
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'weekend queue not seeded'));

    const runs = [...workers].map(([queue, worker]) =>
      worker.run().catch((err) => {
        // One dead worker takes the process down, so the stack notices instead of half-running.
        log.error({ err, queue }, 'worker failed');
        exitCode = 1;
        for (const w of workers.values()) if (w.getState() === 'RUNNING') w.shutdown();
      }),
    );
    log.info({ queues: [...workers.keys()], identity: workerIdentity(), address: config.temporal.address, metricsPort: workerMetricsPort(), ms: Date.now() - started }, 'workers running');
    await Promise.all(runs);
    log.info('workers stopped');
  } finally {
    await Promise.allSettled([store.close(), closeTemporalClient(), connection.close(), new Promise((r) => (metricsServer ? metricsServer.close(r) : r(undefined)))]);
  }
  process.exitCode = exitCode;
}

main().catch((err) => {
  log.fatal({ err }, 'worker process failed to start');
  process.exit(1);
});
