/**
 * Workflow interceptor module (bundled with every workflow, workers/start.ts): tells the worker
 * process when a job run starts and how it ends, through the job-metrics sink.
 */
import { ContinueAsNew, isCancellation, proxySinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { JobEndStatus, JobMetricSinks } from '../temporal/common/jobMetrics';

const { jobs } = proxySinks<JobMetricSinks>();

const endOf = (err: unknown): JobEndStatus => (err instanceof ContinueAsNew ? 'continued' : isCancellation(err) ? 'cancelled' : 'failed');

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        jobs.started();
        try {
          const result = await next(input);
          jobs.ended('completed');
          return result;
        } catch (err) {
          jobs.ended(endOf(err));
          throw err;
        }
      },
    },
  ],
});
