/**
 * Activities of the `cf-orders` task queue: one call each of the CF area's service (the steps of
 * spec 3.2, each run as the account its batch was queued under). Failures go through
 * withTemporalFailures: portal outages are retried, refused credentials, missing credits (402)
 * and rejected requests are not.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { BatchNotFoundError, type CfportalService } from '../domain/cfportal/service';
import { withTemporalFailures } from './failures';
import { keepAlive } from './heartbeat';

export function createCfportalActivities({ cfportal }: { cfportal: CfportalService }) {
  const run = <T>(fn: () => Promise<T>) =>
    keepAlive(() => withTemporalFailures(async () => {
      try {
        return await fn();
      } catch (err) {
        if (err instanceof BatchNotFoundError) throw ApplicationFailure.nonRetryable(err.message, err.name);
        throw err;
      }
    }));
  return {
    // An attempt Temporal gave up on (cancelled on its next heartbeat) adds no further parcel.
    cfFillCart: (orderId: string) => run(() => cfportal.fillCart(orderId, Context.current().cancellationSignal)),
    cfSubmitBatch: (orderId: string) => run(() => cfportal.submitBatch(orderId)),
    cfMarkReconcile: (orderId: string) => run(() => cfportal.markForReconciliation(orderId)),
    cfAwaitOrder: (orderId: string, portalOrderId: string, pollIntervalMs: number) => run(() => cfportal.awaitOrder(orderId, portalOrderId, pollIntervalMs)),
    cfFetchDocuments: (orderId: string, portalOrderId: string, issuedAtMs: number) => run(() => cfportal.fetchDocuments(orderId, portalOrderId, issuedAtMs)),
    cfFinishBatch: (orderId: string) => run(() => cfportal.finishBatch(orderId)),
    cfFailBatch: (orderId: string, message: string) => run(() => cfportal.failBatch(orderId, message)),
  };
}

export type CfportalActivities = ReturnType<typeof createCfportalActivities>;
