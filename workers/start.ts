/**
 * Builds the Workers of the registry on one NativeConnection. Shared by workers/main.ts and the
 * integration tests, so tests run exactly the wiring production runs (on their own task queue).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { config } from '../domain/config';
import { childLogger } from '../domain/log';
import type { TaskQueueName } from '../temporal/common/queues';
import { activityDeps, hasRegisteredWork, workerRegistry, type QueueWorkerEntry, type WorkerDeps } from './registry';
import { jobMetricSinks } from './metrics';

/** Every workflow bundle carries the job-metrics interceptor; every Worker the sink it calls. */
const JOB_METRICS_INTERCEPTOR = fileURLToPath(new URL('../workflows/jobMetrics.ts', import.meta.url));

const log = childLogger('workers');

// Bundling (webpack) takes seconds: do it once per workflows module per process.
const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

export function workflowBundleFor(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  let b = bundles.get(workflowsPath);
  if (!b) {
    const started = Date.now();
    b = bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: [JOB_METRICS_INTERCEPTOR],
      // Webpack's chatter is noise in the stack's prefixed logs; keep warnings and errors.
      logger: {
        log: () => {},
        trace: () => {},
        debug: () => {},
        info: () => {},
        warn: (message, meta) => log.warn(meta ?? {}, message),
        error: (message, meta) => log.error(meta ?? {}, message),
      },
    }).then((bundle) => {
      log.info({ workflowsPath, ms: Date.now() - started }, 'workflow bundle ready');
      return bundle;
    });
    bundles.set(workflowsPath, b);
    b.catch(() => bundles.delete(workflowsPath));
  }
  return b;
}

/**
 * `<name>@<host>:<pid>`: Temporal records it on every workflow task and activity it runs (the
 * history's `identity`), so an operator sees which process of which host did what, and the stack
 * knows its own processes among a queue's pollers (scripts/stack/services.ts).
 */
export function workerIdentity(): string {
  return `${config.workers.name}@${os.hostname()}:${process.pid}`;
}

export interface CreateWorkersOptions {
  connection: NativeConnection;
  namespace: string;
  deps: WorkerDeps;
  /** Queues to serve; default every queue with registered work. */
  queues?: readonly TaskQueueName[];
  registry?: Record<TaskQueueName, QueueWorkerEntry>;
}

export async function createQueueWorkers(opts: CreateWorkersOptions): Promise<Map<TaskQueueName, Worker>> {
  const registry = opts.registry ?? workerRegistry;
  const queues = (opts.queues ?? (Object.keys(registry) as TaskQueueName[])).filter((q) =>
    hasRegisteredWork(registry[q]),
  );
  const workers = new Map<TaskQueueName, Worker>();
  // One set of area services for every queue of the process (domain/services.ts).
  const deps = activityDeps(opts.deps);
  for (const queue of queues) {
    const entry = registry[queue];
    const worker = await Worker.create({
      connection: opts.connection,
      namespace: opts.namespace,
      taskQueue: queue,
      identity: workerIdentity(),
      ...(entry.workflowsPath ? { workflowBundle: await workflowBundleFor(entry.workflowsPath), sinks: jobMetricSinks() } : {}),
      ...(entry.activities ? { activities: entry.activities(deps) } : {}),
      shutdownGraceTime: '10 seconds',
      ...entry.options,
    });
    workers.set(queue, worker);
  }
  return workers;
}
