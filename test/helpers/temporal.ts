/**
 * Temporal test environments that work without downloads (ARCHITECTURE.md, measured facts):
 *  - localEnv(): the stack's dev server (config.temporal.address) in a namespace of the test
 *    file's own (testNamespace), for real-worker tests;
 *  - timeSkippingEnv(): Temporal's Java test server from Maven Central, started through the
 *    wrapper that scripts/temporal-test-server.sh gathers into the tool cache.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ulid } from 'ulid';
// The package is CommonJS built by protobufjs: Node's ESM loader (tsx, the benchmarks) cannot see
// its named exports, so the namespace is taken from the default export.
import proto from '@temporalio/proto';
import { config, projectRoot } from '../../domain/config';
import { JOB_KIND, SIRUTA } from '../../temporal/common/searchAttributes';

/**
 * Worker state changes at INFO drown test output; keep warnings. Jest gives each test file its
 * own module registry (hence its own Runtime), so installing once per file is right; a second
 * install in the same file is refused by the SDK, which is harmless here.
 */
function quietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed (the Runtime is created on first use).
  }
}

let wrapperPath: string | undefined;

/**
 * Path of the test-server wrapper: TEMPORAL_TEST_SERVER if set, otherwise whatever the bootstrap
 * script reports (it returns at once when the jars are present, and gathers them otherwise).
 */
export function temporalTestServerPath(): string {
  if (wrapperPath) return wrapperPath;
  const fromEnv = process.env.TEMPORAL_TEST_SERVER;
  wrapperPath =
    fromEnv && fromEnv !== ''
      ? fromEnv
      : execFileSync('bash', [path.join(projectRoot, 'scripts', 'temporal-test-server.sh')], {
          encoding: 'utf8',
          env: { ...process.env, TOOLS_DIR: config.toolsDir },
          stdio: ['ignore', 'pipe', 'inherit'],
        }).trim();
  return wrapperPath;
}

/**
 * The Java test server knows no custom search attributes, and it does not refuse a child started
 * with unknown ones: the child never starts and its parent waits forever (measured: a step of the
 * weekend sync hung until the 300 s test timeout). So the job attributes every workflow sets
 * (temporal/common/searchAttributes.ts) are registered here, as the stack registers them on the dev server.
 */
export async function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const env = await startTimeSkippingServer();
  await addJobSearchAttributes(env.connection.operatorService, env.namespace ?? 'default');
  return env;
}

/**
 * The SDK gives the Java server 5 s to listen, a fixed wait; on two loaded cores its JVM start
 * sometimes takes longer (CI: "did not start within 5s"), so a slow start is tried again.
 */
async function startTimeSkippingServer(attempts = 5): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: temporalTestServerPath() } },
      });
    } catch (err) {
      if (attempt >= attempts || !/did not start within/.test(String((err as Error).message))) throw err;
    }
  }
}

async function addJobSearchAttributes(operator: Connection['operatorService'], namespace: string): Promise<void> {
  const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_INT } = proto.temporal.api.enums.v1.IndexedValueType;
  await operator.addSearchAttributes({
    namespace,
    searchAttributes: { [JOB_KIND.name]: INDEXED_VALUE_TYPE_KEYWORD, [SIRUTA.name]: INDEXED_VALUE_TYPE_INT },
  });
}

let fileNamespace: Promise<string> | undefined;

/**
 * This test file's own Temporal namespace on the stack's dev server, registered on first use (it
 * is usable within milliseconds there) with the job search attributes. It becomes
 * config.temporal.namespace for the rest of the file, so everything the file runs (the API's job
 * starts, activities that start jobs, its workers, its schedules) meets only this file's
 * workflows: queue names stay the product's constants, and neither the stack's workers nor a
 * suite running beside this one ever see them (a running sync of another suite once turned a
 * disconnect's 403 into a 409). Jest gives each file its own module registry, hence its own
 * config object; worker child processes get the name through TEMPORAL_NAMESPACE.
 */
export function testNamespace(): Promise<string> {
  fileNamespace ??= (async () => {
    const namespace = `test-${ulid().toLowerCase()}`;
    const connection = await Connection.connect({ address: config.temporal.address });
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
      await addJobSearchAttributes(connection.operatorService, namespace);
    } finally {
      await connection.close();
    }
    (config.temporal as { namespace: string }).namespace = namespace;
    return namespace;
  })();
  return fileNamespace;
}

/** The stack's dev server, in this file's own namespace (testNamespace). */
export async function localEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createFromExistingServer({
    address: config.temporal.address,
    namespace: await testNamespace(),
  });
}

/** A per-run tag for ids and rows of a test, so runs and suites never meet each other's data. */
export function runSuffix(): string {
  return `test-${ulid().toLowerCase()}`;
}

/** The namespace of a test environment's client, for its workers (the time-skipping server has only `default`). */
export function namespaceOf(env: TestWorkflowEnvironment): string {
  return env.namespace ?? 'default';
}

/** An activity a workflow scheduled, and the heartbeat timeout it was given in ms (0: none). */
export type ScheduledActivity = { activity: string; heartbeatMs: number };

/**
 * Every activity scheduled in a workflow's history and its child workflows', in order: a killed
 * worker holds an activity until its heartbeat timeout, or without one its whole start-to-close.
 */
export async function scheduledActivities(client: Client, workflowId: string, runId?: string): Promise<ScheduledActivity[]> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const out: ScheduledActivity[] = [];
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) out.push({ activity: s.activityType?.name ?? '?', heartbeatMs: s.heartbeatTimeout ? tsToMs(s.heartbeatTimeout) : 0 });
    const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
    if (child?.workflowId) out.push(...(await scheduledActivities(client, child.workflowId, child.runId ?? undefined)));
  }
  return out;
}

/** Each activity type a workflow scheduled, with the longest heartbeat timeout it was given. */
export async function heartbeatsOf(client: Client, workflowId: string, runId?: string): Promise<Record<string, number>> {
  const byType: Record<string, number> = {};
  for (const a of await scheduledActivities(client, workflowId, runId)) byType[a.activity] = Math.max(byType[a.activity] ?? 0, a.heartbeatMs);
  return byType;
}
