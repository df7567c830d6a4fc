/**
 * Temporal test environments that work without downloads (ARCHITECTURE.md, measured facts):
 *  - localEnv(): the stack's dev server (config.temporal.address), for real-worker tests;
 *  - timeSkippingEnv(): Temporal's Java test server from Maven Central, started through the
 *    wrapper that scripts/temporal-test-server.sh gathers into the tool cache.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ulid } from 'ulid';
import { temporal } from '@temporalio/proto';
import { config, projectRoot } from '../../domain/config';
import { JOB_KIND, SIRUTA } from '../../temporal/searchAttributes';

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
 * (temporal/searchAttributes.ts) are registered here, as the stack registers them on the dev server.
 */
export async function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: temporalTestServerPath() } },
  });
  const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_INT } = temporal.api.enums.v1.IndexedValueType;
  await env.connection.operatorService.addSearchAttributes({
    namespace: config.temporal.namespace,
    searchAttributes: { [JOB_KIND.name]: INDEXED_VALUE_TYPE_KEYWORD, [SIRUTA.name]: INDEXED_VALUE_TYPE_INT },
  });
  return env;
}

export function localEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createFromExistingServer({
    address: config.temporal.address,
    namespace: config.temporal.namespace,
  });
}

/** A per-run suffix for task queues and ids, so tests never meet the stack's own workers. */
export function runSuffix(): string {
  return `test-${ulid().toLowerCase()}`;
}
