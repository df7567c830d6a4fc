/**
 * Activities of the `cf-orders` task queue: one call each into domain/cfportal/pipeline.ts (the
 * steps of spec 3.2). Failures go through withTemporalFailures: portal outages are retried,
 * refused credentials, missing credits (402) and rejected requests are not.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../domain/db/pool';
import type { PrismaClient } from '../domain/db/prisma';
import {
  BatchNotFoundError,
  awaitOrder,
  failBatchWith,
  fetchDocuments,
  fillCart,
  finishBatch,
  markForReconciliation,
  submitBatch,
  type PipelineDeps,
} from '../domain/cfportal/pipeline';
import { batchAccount } from '../domain/cfportal/extracts';
import { cfportalClientFor, configuredAccountSource, type CfAccountSource } from '../domain/cfportal/session';
import { withTemporalFailures } from './failures';
import { keepAlive } from './heartbeat';

export interface CfportalActivityDeps {
  prisma: PrismaClient;
  /** The store's pool: the portal's shared rate schedule. */
  db: Db;
  /** Certificate portal base URL; default config.cfportal.baseUrl (tests aim at their own simulator). */
  cfportalBaseUrl?: string;
  /** Where accounts are read from; default the production slot and CFPORTAL_USERNAME (tests: one account per run). */
  cfportalAccounts?: CfAccountSource;
}

export function createCfportalActivities({ prisma, db, cfportalBaseUrl, cfportalAccounts }: CfportalActivityDeps) {
  /** Every step runs as the account its batch was queued under, whatever is connected now. */
  const deps = async (orderId: string): Promise<PipelineDeps> => {
    const account = await batchAccount(prisma, orderId);
    if (!account) throw new BatchNotFoundError(orderId);
    return { prisma, client: cfportalClientFor(prisma, db, account, cfportalAccounts ?? configuredAccountSource(), cfportalBaseUrl) };
  };
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
    cfFillCart: (orderId: string) => run(async () => fillCart(await deps(orderId), orderId)),
    cfSubmitBatch: (orderId: string) => run(async () => submitBatch(await deps(orderId), orderId)),
    cfMarkReconcile: (orderId: string) => run(async () => markForReconciliation(await deps(orderId), orderId)),
    cfAwaitOrder: (orderId: string, portalOrderId: string, pollIntervalMs: number) =>
      run(async () => awaitOrder(await deps(orderId), orderId, portalOrderId, pollIntervalMs)),
    cfFetchDocuments: (orderId: string, portalOrderId: string, issuedAtMs: number) =>
      run(async () => fetchDocuments(await deps(orderId), orderId, portalOrderId, issuedAtMs)),
    cfFinishBatch: (orderId: string) => run(async () => finishBatch(await deps(orderId), orderId)),
    cfFailBatch: (orderId: string, message: string) => run(async () => failBatchWith(await deps(orderId), orderId, message)),
  };
}

export type CfportalActivities = ReturnType<typeof createCfportalActivities>;
