/**
 * Background county refresh (spec 3.1: on the first connection with missing county data) and
 * the demo seed's catalogue step: the UAT catalogue compared with the portal per county and
 * upserted where it differs (domain/landreg/catalogue.ts).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { CatalogueRefreshResult } from '../domain/landreg/jobTypes';
import type { LandregPortalActivities } from '../activities/landreg';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';

/** Portal calls on the rate-limited landreg queue, with the portal queue's timeouts and retry policy. */
const landreg = proxyActivities<LandregPortalActivities>({
  taskQueue: TaskQueue.landreg,
  startToCloseTimeout: '15 minutes',
  ...KEPT_ALIVE,
  retry: RETRY.portal,
});

export async function uatCatalogRefresh(opts: { force?: boolean } = {}): Promise<CatalogueRefreshResult> {
  return landreg.refreshUatCatalogue(opts);
}
