/**
 * The portal health ping (spec 3.1): every 3 minutes (schedule `portal-health:global`), one
 * call that never logs in; the activity records availability, maintenance (503 + keywords) and
 * the count of consecutive failures on the shared session row, which the session route shows.
 */
import type { LandregPortalActivities } from '../activities/landreg';
import { proxyActivities } from '@temporalio/workflow';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import type { PortalHealthResult } from '../domain/landreg/jobTypes';

// No retries: a failed ping IS the measurement; the next one comes in 3 minutes.
const landreg = proxyActivities<LandregPortalActivities>({
  taskQueue: TaskQueue.landreg,
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.once,
});

export async function portalHealth(): Promise<PortalHealthResult> {
  return landreg.checkPortalHealth();
}
