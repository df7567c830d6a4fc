/**
 * Hourly housekeeping of the server-side sessions, started by the `session-housekeeping:global`
 * schedule on the `store` queue. Deterministic: the deletion and its clock live in the activity.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { StoreActivities } from '../activities/store';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import type { SessionHousekeepingResult } from '../domain/auth/jobTypes';

const store = proxyActivities<StoreActivities>({
  taskQueue: TaskQueue.store,
  // A purge is a few batched DELETEs; a minute is generous, and a stuck one is retried.
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.periodic,
});

export async function sessionHousekeeping(): Promise<SessionHousekeepingResult> {
  const deletedSessions = await store.purgeExpiredSessions();
  return { deletedSessions };
}
