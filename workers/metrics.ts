/**
 * A worker process's metrics (docs/operations.md "Watching it"), on its own port
 * (`WORKER_METRICS_PORT` + the worker's index, CONTRACT.md section 6): our registry (jobs, outside
 * calls, pools, event loop, memory, the last backup) followed by the Temporal SDK's own metrics
 * (`temporal_*`: task slots, poll latencies, workflow and activity outcomes, sticky cache).
 *
 * The SDK's Rust core serves its metrics on an HTTP endpoint of its own and no other way to read
 * them from Node.js; that endpoint is bound to a free loopback port and read at each scrape, so
 * one scrape per worker carries both, under one access rule: a loopback caller or
 * `Authorization: Bearer <METRICS_TOKEN>` (a worker has no sessions), otherwise 401.
 */
import http from 'node:http';
import type { InjectedSinks } from '@temporalio/worker';
import { config } from '../domain/config';
import { bearerOf, tokensEqual } from '../domain/crypto/tokens';
import { AppError, errors } from '../domain/errors';
import { childLogger } from '../domain/log';
import { jobDuration, jobsEnded, jobsStarted, scrape } from '../domain/metrics';
import { applyKeepAlive } from '../domain/net/keepAlive';
import { isLoopback } from '../domain/net/loopback';
import { jobKindOf, type JobMetricSinks } from '../temporal/common/jobMetrics';

const log = childLogger('workers');

/** The worker's side of the job-metrics sink (workflows/jobMetrics.ts calls it). */
export function jobMetricSinks(): InjectedSinks<JobMetricSinks> {
  return {
    jobs: {
      started: { fn: (info) => jobsStarted.inc({ kind: jobKindOf(info) }) },
      ended: {
        fn: (info, status) => {
          const labels = { kind: jobKindOf(info), status };
          jobsEnded.inc(labels);
          jobDuration.observe(labels, Math.max(0, Date.now() - info.runStartTime.getTime()) / 1000);
        },
      },
    },
  };
}

/** This worker's metrics port: worker i of the stack on the base port + i. */
export function workerMetricsPort(): number {
  return config.workers.metricsBasePort + config.workers.index;
}

async function sdkText(sdkPort: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${sdkPort}/metrics`, { signal: AbortSignal.timeout(5000) });
    return res.ok ? await res.text() : '';
  } catch {
    return '';
  }
}

/** CONTRACT.md section 6 for a worker: a loopback caller or the metrics bearer token (no sessions here). */
export function workerMetricsAllowed(req: http.IncomingMessage): boolean {
  if (isLoopback(req.socket.remoteAddress)) return true;
  const token = bearerOf(req.headers.authorization);
  return token !== null && config.tokens.metricsToken !== '' && tokensEqual(token, config.tokens.metricsToken);
}

function sendError(res: http.ServerResponse, err: AppError): void {
  res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(err.toBody()));
}

/** Serves `GET /metrics` on `port`; resolves once listening. */
export async function serveWorkerMetrics(port: number, sdkPort: number): Promise<http.Server> {
  const server = applyKeepAlive(http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || req.method !== 'GET') return sendError(res, errors.notFound());
    if (!workerMetricsAllowed(req)) return sendError(res, errors.unauthorized('Token de acces lipsă sau invalid.'));
    Promise.all([scrape(), sdkText(sdkPort)]).then(
      ([own, sdk]) => res.writeHead(200, { 'content-type': own.contentType }).end(sdk ? `${own.text}\n${sdk}` : own.text),
      (err: unknown) => {
        log.warn({ err: (err as Error).message }, 'metrics scrape failed');
        sendError(res, errors.internal());
      },
    );
  }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.workers.metricsHost, () => resolve());
  });
  return server;
}
