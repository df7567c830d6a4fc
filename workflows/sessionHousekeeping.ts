/**
 * Hourly housekeeping of the server-side sessions, started by the `session-housekeeping:global`
 * schedule on the `store` queue. Deterministic: the deletion and its clock live in the activity.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { StoreActivities } from '../activities/store';

// store queue (inherited from this workflow's task queue)
const store = proxyActivities<StoreActivities>({
  // A purge is a few batched DELETEs; a minute is generous, and a stuck one is retried.
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    // The next hourly run will try again anyway; no point retrying past the hour.
    maximumAttempts: 5,
    // A missing table or a bad query will not heal by retrying.
    nonRetryableErrorTypes: ['SchemaError'],
  },
});

export interface SessionHousekeepingResult {
  deletedSessions: number;
}

export async function sessionHousekeeping(): Promise<SessionHousekeepingResult> {
  const deletedSessions = await store.purgeExpiredSessions();
  return { deletedSessions };
}
