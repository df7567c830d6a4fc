/**
 * The one way a workflow starts a job of the job table (temporal/common/jobTable.ts) as its
 * child: the record's workflow, queue, id (a fresh `<kind>:<scope>:<ulid>`, a singleton's fixed
 * `<kind>:<scope>`) and search attributes, and, for a kind that locks a resource (`uat:<siruta>`),
 * the same lock the API's `start` takes, claimed by an activity before the child starts and
 * released by another once it ended. A resource held by another job (a user's sync of the UAT) is
 * not synced twice: the parent learns who holds it and goes on.
 */
import {
  CancellationScope,
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
import { JOBS, lockOf, scopeOf, sirutaOfJob, type JobKind, type JobLock, type JobSpec } from '../temporal/common/jobTable';
import { jobSearchAttributes } from '../temporal/common/searchAttributes';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { childJobId } from './childJobId';

const jobs = proxyActivities<JobActivities>({ taskQueue: TaskQueue.store, startToCloseTimeout: '2 minutes', retry: RETRY.store });

type Done<W extends Workflow> = { heldBy: null; jobId: string; result: WorkflowResultType<W> };

/** A kind that locks a resource may find it held (`heldBy`, the running job's id); any other always runs. */
export type ChildJobOutcome<W extends Workflow, K extends JobKind = JobKind> = K extends unknown
  ? (typeof JOBS)[K] extends { lock: JobLock }
    ? { heldBy: string } | Done<W>
    : Done<W>
  : never;

/** The child's start options from the record: queue, arguments, search attributes, and its id. */
function childOptions(kind: JobKind, input: unknown) {
  const spec: JobSpec = JOBS[kind];
  const scope = scopeOf(kind, input);
  return {
    workflowId: spec.singleton ? `${kind}:${scope}` : childJobId(kind, scope),
    taskQueue: spec.queue,
    args: input === undefined ? [] : [input],
    typedSearchAttributes: jobSearchAttributes(kind, sirutaOfJob(kind, input)),
  };
}

/**
 * The job holding each input's resource (null: free), for a parent that decides about many
 * resources at once and starts a child job only on some (the county refresh). Nothing is claimed:
 * a child it then starts still goes through `executeChildJob`.
 */
export async function heldChildJobs(kind: JobKind, inputs: unknown[]): Promise<Array<string | null>> {
  return inputs.length === 0 ? [] : jobs.heldChildJobLocks({ kind, inputs });
}

/**
 * Runs a child job of `kind` to its end, or answers `heldBy` (the running job's id) when its
 * resource is locked. `K` (the kind's literal) narrows the outcome of a kind without a lock.
 */
export async function executeChildJob<W extends Workflow, K extends JobKind = JobKind>(kind: K, input: Parameters<W>[0]): Promise<ChildJobOutcome<W, K>> {
  const options = childOptions(kind, input);
  const jobId = options.workflowId;
  const locked = lockOf(kind, input) !== null;
  if (locked) {
    const { heldBy } = await jobs.claimChildJobLock({ kind, input, jobId });
    if (heldBy) return { heldBy } as ChildJobOutcome<W, K>;
  }
  try {
    // The table names workflows by type name; the caller's W types the input and the result.
    const result: WorkflowResultType<W> = await executeChild<W>(JOBS[kind].workflow, options as never);
    return { heldBy: null, jobId, result } as ChildJobOutcome<W, K>;
  } finally {
    // Also when the parent is cancelled: the lock must not outlive the child.
    if (locked) await CancellationScope.nonCancellable(() => jobs.releaseChildJobLock({ kind, input, jobId }));
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
      ...childOptions(kind, input),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      ...(o.executionTimeout ? { workflowExecutionTimeout: o.executionTimeout } : {}),
    } as never);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return null;
    throw err;
  }
}
