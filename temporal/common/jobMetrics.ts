/**
 * What a job run tells its worker process for the job metrics (workers/metrics.ts): the sink
 * the workflow interceptor (workflows/jobMetrics.ts) calls at a run's start and end. Sinks run in
 * the worker's Node.js context after the workflow task, and not while a run is replayed, so a run
 * is counted once by the process that runs it live.
 */
import type { Sinks } from '@temporalio/workflow';
import { JOBS, jobIdOfRun } from './jobTable';

/** continued: the run continued as new (a queue's next chapter), the job goes on. */
export type JobEndStatus = 'completed' | 'failed' | 'cancelled' | 'continued';

export interface JobMetricSinks extends Sinks {
  jobs: {
    started(): void;
    ended(status: JobEndStatus): void;
  };
}

/**
 * A run's job kind: its job id's first part when it names a kind of the job table (`sync:…`,
 * `deliver-mail:…`; under a lock's workflow id the job id is in the memo), else its workflow
 * type (a schedule's run, a workflow no starter names). Bounded either way: kinds and workflow
 * types are fixed lists.
 */
export function jobKindOf(run: { workflowId: string; workflowType: string; memo?: Record<string, unknown> }): string {
  const prefix = jobIdOfRun(run).split(':', 1)[0];
  return Object.hasOwn(JOBS, prefix) ? prefix : run.workflowType;
}
