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
  addParcelToCart,
  failBatchWith,
  finishBatch,
  matchDocuments,
  pollBatch,
  prepareBatch,
  recordSubmitIntent,
  storeDocument,
  submitBatch,
  type DocumentToFetch,
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
    cfPrepareBatch: (orderId: string) => run(() => prepareBatch(deps(), orderId)),
    cfAddParcel: (orderId: string, extractId: string) => run(() => addParcelToCart(deps(), orderId, extractId)),
    cfRecordSubmitIntent: (orderId: string) => run(() => recordSubmitIntent(deps(), orderId)),
    cfSubmitBatch: (orderId: string) => run(() => submitBatch(deps(), orderId)),
    cfPollBatch: (orderId: string, portalOrderId: string) => run(() => pollBatch(deps(), orderId, portalOrderId)),
    cfMatchDocuments: (orderId: string, portalOrderId: string) => run(() => matchDocuments(deps(), orderId, portalOrderId)),
    cfStoreDocument: (doc: DocumentToFetch, issuedAtMs: number) => run(() => storeDocument(deps(), doc, issuedAtMs)),
    cfFinishBatch: (orderId: string) => run(() => finishBatch(deps(), orderId)),
    cfFailBatch: (orderId: string, message: string) => run(() => failBatchWith(deps(), orderId, message)),
  };
}

export type CfportalActivities = ReturnType<typeof createCfportalActivities>;
