/**
 * What the CF routes talk to: the store (Prisma and pg), the certificate portal and the task
 * queue of the CF workflows. Production uses the process-wide defaults; an integration test
 * points them at its own simulator, database pool and isolated task queue.
 */
import type pg from 'pg';
import { config } from '../../domain/config';
import { getPool } from '../../domain/db/pool';
import { createPrisma, getPrisma, type PrismaClient } from '../../domain/db/prisma';
import { cfportalClient } from '../../domain/cfportal/session';
import type { CfCredentials, CfportalClient } from '../../domain/cfportal/client';
import { TaskQueue } from '../../temporal/queues';

export interface CfApiContext {
  prisma: () => PrismaClient;
  db: () => pg.Pool;
  client: () => CfportalClient;
  /** Task queue on which cfOrderQueue is started (workflows run on the store queue). */
  workflowTaskQueue: string;
  /** Pause between status polls given to new batches. */
  pollIntervalMs: number;
}

export const cfApi: CfApiContext = {
  prisma: getPrisma,
  db: getPool,
  client: () => cfportalClient(getPrisma()),
  workflowTaskQueue: TaskQueue.store,
  pollIntervalMs: config.cfportal.pollIntervalMs,
};

/** Aims the CF routes at a test's simulator, pool and queue. */
export function configureCfApi(o: { db: pg.Pool; baseUrl: string; credentials?: CfCredentials; workflowTaskQueue: string; pollIntervalMs?: number }): void {
  const prisma = createPrisma(o.db);
  Object.assign(cfApi, {
    prisma: () => prisma,
    db: () => o.db,
    client: () => cfportalClient(prisma, o.baseUrl, o.credentials),
    workflowTaskQueue: o.workflowTaskQueue,
    pollIntervalMs: o.pollIntervalMs ?? cfApi.pollIntervalMs,
  } satisfies CfApiContext);
}
