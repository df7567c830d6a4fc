/**
 * The parent workflow's side of the job table's lock (workflows/childJobs.ts): the claim is
 * temporal/jobs.ts `claimChildJobLock`, passed in by workers/registry.ts (activities import only
 * temporal/common/ of temporal/).
 */
import type { JobKind } from '../temporal/common/jobTable';

export interface ChildJobLocks {
  claimChildJobLock(kind: JobKind, input: unknown, jobId: string): Promise<{ heldBy: string | null }>;
  releaseChildJobLock(kind: JobKind, input: unknown, jobId: string): Promise<void>;
}

export function createJobActivities({ locks }: { locks: ChildJobLocks }) {
  return {
    /** Claims the resource a child job's input locks for `jobId`, or names the job holding it. */
    async claimChildJobLock(i: { kind: JobKind; input: unknown; jobId: string }): Promise<{ heldBy: string | null }> {
      return locks.claimChildJobLock(i.kind, i.input, i.jobId);
    },
    /** Frees it once the child ended (only while it still names `jobId`). */
    async releaseChildJobLock(i: { kind: JobKind; input: unknown; jobId: string }): Promise<void> {
      await locks.releaseChildJobLock(i.kind, i.input, i.jobId);
    },
  };
}

export type JobActivities = ReturnType<typeof createJobActivities>;
