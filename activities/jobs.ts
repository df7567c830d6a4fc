/**
 * The parent workflow's question to the job table's locks (workflows/childJobs.ts): which job
 * holds a resource, asked by the lock's workflow id through temporal/jobs.ts `jobsHolding`,
 * passed in by workers/registry.ts (activities import only temporal/common/ of temporal/).
 */
import type { JobKind } from '../temporal/common/jobTable';
import { keepAlive } from './heartbeat';

export interface JobLocks {
  jobsHolding(kind: JobKind, inputs: readonly unknown[]): Promise<Array<string | null>>;
}

export function createJobActivities({ locks }: { locks: JobLocks }) {
  return {
    /** The job holding each input's resource (or null): the running run under the lock's workflow id. */
    async jobsHolding(i: { kind: JobKind; inputs: unknown[] }): Promise<Array<string | null>> {
      return keepAlive(() => locks.jobsHolding(i.kind, i.inputs));
    },
  };
}

export type JobActivities = ReturnType<typeof createJobActivities>;
