/**
 * The one way a workflow starts a job of the job table (temporal/common/jobTable.ts) as its
 * child: the record's workflow, queue, id (a fresh `<kind>:<scope>:<ulid>`, a singleton's fixed
 * `<kind>:<scope>`) and search attributes. A kind that locks a resource (`uat:<siruta>`) runs
 * under the lock's workflow id, as the API's `start` starts it, with its job id in the memo:
 * while another job holds the resource (a user's sync of the UAT) Temporal refuses the child's
 * start, and the parent learns who holds it and goes on, so nothing is synced twice.
 */
import {
  ParentClosePolicy,
  WorkflowIdReusePolicy,
  executeChild,
  proxyActivities,
  startChild,
  type ChildWorkflowHandle,
  type Workflow,
  type WorkflowResultType,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type Duration } from '@temporalio/common';
import type { JobActivities } from '../activities/jobs';
import { JOBS, lockOf, lockWorkflowId, scopeOf, sirutaOfJob, type JobKind, type JobLock, type JobSpec } from '../temporal/common/jobTable';
import { jobSearchAttributes } from '../temporal/common/searchAttributes';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import { childJobId } from './childJobId';

const jobs = proxyActivities<JobActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '2 minutes',
  // It heartbeats while alive: a lock check on a killed worker is retried elsewhere after 20 s,
  // where the start-to-close timeout alone held a county job up for two minutes.
  ...KEPT_ALIVE,
  retry: RETRY.store,
});

type Done<W extends Workflow> = { heldBy: null; jobId: string; result: WorkflowResultType<W> };

/** A kind that locks a resource may find it held (`heldBy`, the running job's id); any other always runs. */
export type ChildJobOutcome<W extends Workflow, K extends JobKind = JobKind> = K extends unknown
  ? (typeof JOBS)[K] extends { lock: JobLock }
    ? { heldBy: string } | Done<W>
    : Done<W>
  : never;

/** The child's job id and start options from the record: queue, arguments, search attributes, and its workflow id (a lock's, or the job id). */
function childOptions(kind: JobKind, input: unknown) {
  const spec: JobSpec = JOBS[kind];
  const scope = scopeOf(kind, input);
  const jobId = spec.singleton ? `${kind}:${scope}` : childJobId(kind, scope);
  const lock = lockOf(kind, input);
  return {
    jobId,
    options: {
      workflowId: lock ? lockWorkflowId(lock) : jobId,
      taskQueue: spec.queue,
      args: input === undefined ? [] : [input],
      typedSearchAttributes: jobSearchAttributes(kind, sirutaOfJob(kind, input)),
      ...(lock ? { memo: { jobId }, workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE } : {}),
    },
  };
}

/**
 * The job holding each input's resource (null: free), for a parent that decides about many
 * resources at once and starts a child job only on some (the county refresh). Nothing is held
 * for it: a child it then starts still goes through `executeChildJob`.
 */
export async function heldChildJobs(kind: JobKind, inputs: unknown[]): Promise<Array<string | null>> {
  return inputs.length === 0 ? [] : jobs.jobsHolding({ kind, inputs });
}

/** A refused start may find its holder closed before it is named: tried again, this many times in all. */
const START_ATTEMPTS = 3;

/**
 * Runs a child job of `kind` to its end, or answers `heldBy` (the running job's id) when its
 * resource is held. `K` (the kind's literal) narrows the outcome of a kind without a lock.
 */
export async function executeChildJob<W extends Workflow, K extends JobKind = JobKind>(kind: K, input: Parameters<W>[0]): Promise<ChildJobOutcome<W, K>> {
  for (let attempt = 1; ; attempt++) {
    const { jobId, options } = childOptions(kind, input);
    try {
      // The table names workflows by type name; the caller's W types the input and the result.
      // A parent that closes before its child (its run timeout, an operator's terminate) asks the
      // child to cancel rather than killing it: the child's own cleanup then runs (a layer sync
      // records its run as failed; terminated, the run stayed "running" for good).
      const result: WorkflowResultType<W> = await executeChild<W>(JOBS[kind].workflow, { ...options, parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL } as never);
      return { heldBy: null, jobId, result } as ChildJobOutcome<W, K>;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || lockOf(kind, input) === null) throw err;
      const [heldBy] = await jobs.jobsHolding({ kind, inputs: [input] });
      if (heldBy !== null || attempt >= START_ATTEMPTS) return { heldBy: heldBy ?? options.workflowId } as ChildJobOutcome<W, K>;
    }
  }
}

/**
 * Starts a singleton job (the overview rebuild and build, the weekend session) as a child its
 * parent does not wait for: it goes on after the parent closes. Null when it already runs (the
 * singleton's id is its own lock: one started by the API, a page or another workflow).
 */
export async function startChildJob<W extends Workflow>(
  kind: JobKind,
  input: Parameters<W>[0],
  o: { executionTimeout?: Duration } = {},
): Promise<ChildWorkflowHandle<W> | null> {
  if (!(JOBS[kind] as JobSpec).singleton) throw new Error(`startChildJob starts singletons; "${kind}" is not one`);
  try {
    return await startChild<W>(JOBS[kind].workflow, {
      ...childOptions(kind, input).options,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      ...(o.executionTimeout ? { workflowExecutionTimeout: o.executionTimeout } : {}),
    } as never);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
    throw err;
  }
}
