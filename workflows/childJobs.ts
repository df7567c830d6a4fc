/**
 * The one way a workflow starts a job of the job table (temporal/common/jobTable.ts) as its
 * child: the record's workflow, queue, id scope and search attributes, and, for a kind that locks
 * a resource (`uat:<siruta>`), the same lock the API's `start` takes, claimed by an activity
 * before the child starts and released by another once it ended. A resource held by another job (a user's sync of the UAT) is not
 * synced twice: the parent learns who holds it and goes on.
 */
import { CancellationScope, executeChild, proxyActivities, type Workflow, type WorkflowResultType } from '@temporalio/workflow';
import type { JobActivities } from '../activities/jobs';
import { JOBS, lockOf, scopeOf, sirutaOfJob, type JobKind, type JobSpec } from '../temporal/common/jobTable';
import { jobSearchAttributes } from '../temporal/common/searchAttributes';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { childJobId } from './childJobId';

const jobs = proxyActivities<JobActivities>({ taskQueue: TaskQueue.store, startToCloseTimeout: '2 minutes', retry: RETRY.store });

export type ChildJobOutcome<W extends Workflow> = { heldBy: string } | { heldBy: null; jobId: string; result: WorkflowResultType<W> };

/**
 * The job holding each input's resource (null: free), for a parent that decides about many
 * resources at once and starts a child job only on some (the county refresh). Nothing is claimed:
 * a child it then starts still goes through `executeChildJob`.
 */
export async function heldChildJobs(kind: JobKind, inputs: unknown[]): Promise<Array<string | null>> {
  return inputs.length === 0 ? [] : jobs.heldChildJobLocks({ kind, inputs });
}

/** Runs a child job of `kind` to its end, or answers `heldBy` (the running job's id) when its resource is locked. */
export async function executeChildJob<W extends Workflow>(kind: JobKind, input: Parameters<W>[0]): Promise<ChildJobOutcome<W>> {
  const spec: JobSpec = JOBS[kind];
  const jobId = childJobId(kind, scopeOf(kind, input));
  const locked = lockOf(kind, input) !== null;
  if (locked) {
    const { heldBy } = await jobs.claimChildJobLock({ kind, input, jobId });
    if (heldBy) return { heldBy };
  }
  try {
    // The table names workflows by type name; the caller's W types the input and the result.
    const result: WorkflowResultType<W> = await executeChild<W>(spec.workflow, {
      workflowId: jobId,
      taskQueue: spec.queue,
      args: [input],
      typedSearchAttributes: jobSearchAttributes(kind, sirutaOfJob(kind, input)),
    } as never);
    return { heldBy: null, jobId, result };
  } finally {
    // Also when the parent is cancelled: the lock must not outlive the child.
    if (locked) await CancellationScope.nonCancellable(() => jobs.releaseChildJobLock({ kind, input, jobId }));
  }
}
