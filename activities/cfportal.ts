/**
 * Activities of the `cf-orders` task queue: one call each into domain/cfportal/pipeline.ts (the
 * steps of spec 3.2). Failures go through withTemporalFailures: portal outages are retried,
 * refused credentials, missing credits (402) and rejected requests are not.
 */
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import type { Db } from '../domain/db/pool';
import { createPrisma, type PrismaClient } from '../domain/db/prisma';
import {
  BatchNotFoundError,
  awaitOrder,
  failBatchWith,
  fetchDocuments,
  fillCart,
  finishBatch,
  submitBatch,
  type PipelineDeps,
} from '../domain/cfportal/pipeline';
import type { CfCredentials } from '../domain/cfportal/client';
import { cfportalClient } from '../domain/cfportal/session';
import { withTemporalFailures } from './failures';
import { keepAlive } from './heartbeat';

export interface CfportalActivityDeps {
  db: Db;
  /** Certificate portal base URL; default config.cfportal.baseUrl (tests aim at their own simulator). */
  cfportalBaseUrl?: string;
  /** A fixed account instead of the connected/configured one (tests: one account per run). */
  cfportalCredentials?: CfCredentials;
}

export function createCfportalActivities({ db, cfportalBaseUrl, cfportalCredentials }: CfportalActivityDeps) {
  let prisma: PrismaClient | undefined;
  const deps = (): PipelineDeps => {
    prisma ??= createPrisma(db as pg.Pool);
    return { prisma, client: cfportalClient(prisma, cfportalBaseUrl, cfportalCredentials) };
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
    cfFillCart: (orderId: string) => run(() => fillCart(deps(), orderId)),
    cfSubmitBatch: (orderId: string) => run(() => submitBatch(deps(), orderId)),
    cfAwaitOrder: (orderId: string, portalOrderId: string, pollIntervalMs: number) => run(() => awaitOrder(deps(), orderId, portalOrderId, pollIntervalMs)),
    cfFetchDocuments: (orderId: string, portalOrderId: string, issuedAtMs: number) => run(() => fetchDocuments(deps(), orderId, portalOrderId, issuedAtMs)),
    cfFinishBatch: (orderId: string) => run(() => finishBatch(deps(), orderId)),
    cfFailBatch: (orderId: string, message: string) => run(() => failBatchWith(deps(), orderId, message)),
  };
}

export type CfportalActivities = ReturnType<typeof createCfportalActivities>;
