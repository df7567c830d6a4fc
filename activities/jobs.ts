/**
 * The parent workflow's side of the job table's lock (workflows/childJobs.ts): the claim is
 * temporal/jobs.ts `claimChildJobLock`, passed in by workers/registry.ts (activities import only
 * temporal/common/ of temporal/), kept in the worker's store (`db`).
 */
import type { Db } from '../domain/db/pool';
import type { JobKind } from '../temporal/common/jobTable';

export interface ChildJobLocks {
  claimChildJobLock(db: Db, kind: JobKind, input: unknown, jobId: string): Promise<{ heldBy: string | null }>;
  releaseChildJobLock(db: Db, kind: JobKind, input: unknown, jobId: string): Promise<void>;
  heldChildJobLocks(db: Db, kind: JobKind, inputs: readonly unknown[]): Promise<Array<string | null>>;
}

export function createJobActivities({ db, locks }: { db: Db; locks: ChildJobLocks }) {
  return {
    /** Claims the resource a child job's input locks for `jobId`, or names the job holding it. */
    async claimChildJobLock(i: { kind: JobKind; input: unknown; jobId: string }): Promise<{ heldBy: string | null }> {
      return locks.claimChildJobLock(db, i.kind, i.input, i.jobId);
    },
    /** The job holding each input's resource (or null), for many at once; nothing is claimed. */
    async heldChildJobLocks(i: { kind: JobKind; inputs: unknown[] }): Promise<Array<string | null>> {
      return locks.heldChildJobLocks(db, i.kind, i.inputs);
    },
    /** Frees it once the child ended (only while it still names `jobId`). */
    async releaseChildJobLock(i: { kind: JobKind; input: unknown; jobId: string }): Promise<void> {
      await locks.releaseChildJobLock(db, i.kind, i.input, i.jobId);
    },
  };
}

export type JobActivities = ReturnType<typeof createJobActivities>;
