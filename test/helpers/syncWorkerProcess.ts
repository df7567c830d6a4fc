/**
 * A worker process for tests that kill it: the same wiring as workers/main.ts (createQueueWorkers
 * over the registry) for the `store` and `landreg` queues, in the test file's namespace
 * (TEMPORAL_NAMESPACE, set by syncWorkerChild.ts) and aimed at the test's simulator. Prints
 * `ready` on stdout once polling.
 *
 *   node --import tsx test/helpers/syncWorkerProcess.ts --sim http://127.0.0.1:PORT
 *        [--queues store,cf-orders,notifications] [--cfportal http://127.0.0.1:PORT]
 *
 * Started by test/helpers/syncWorkerChild.ts; settings come from the environment as in production
 * (domain/config.ts), so a test may pass e.g. LANDREG_SYNC_PAGES_PER_ACTIVITY to the child.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { config } from '../../domain/config';
import { createPool } from '../../domain/db/pool';
import { TaskQueue, type TaskQueueName } from '../../temporal/common/queues';
import { createQueueWorkers } from '../../workers/start';
import { storeOn } from '../../domain/db/store';

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = (i >= 0 ? process.argv[i + 1] : undefined) ?? fallback;
  if (!v) throw new Error(`--${name} is required`);
  return v;
}

const sim = arg('sim');
// The CF suite runs the store, cf-orders and notifications queues against its certificate portal.
const queues = arg('queues', `${TaskQueue.store},${TaskQueue.landreg}`).split(',') as TaskQueueName[];
const cfportal = process.argv.includes('--cfportal') ? arg('cfportal') : undefined;
Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: ['SIGINT', 'SIGTERM'] });
const connection = await NativeConnection.connect({ address: config.temporal.address });
const db = createPool(config.db.url, 8);
const workers = await createQueueWorkers({
  connection,
  namespace: config.temporal.namespace,
  deps: { store: storeOn(db), landregBaseUrl: sim, cfportalBaseUrl: cfportal },
  queues,
});
const runs = [...workers.values()].map((w) => w.run());
process.stdout.write('ready\n');
await Promise.allSettled(runs);
await db.end();
await connection.close();
