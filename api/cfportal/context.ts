/**
 * What the CF routes talk to: the store (Prisma and pg) and the certificate portal. Production
 * uses the process-wide defaults; an integration test points them at its own simulator and
 * database pool (its workflows run in its own Temporal namespace, test/helpers/temporal.ts).
 */
import type pg from 'pg';
import { config } from '../../domain/config';
import { getPool } from '../../domain/db/pool';
import { createPrisma, getPrisma, type PrismaClient } from '../../domain/db/prisma';
import { cfportalClient } from '../../domain/cfportal/session';
import type { CfCredentials, CfportalClient } from '../../domain/cfportal/client';

export interface CfApiContext {
  prisma: () => PrismaClient;
  db: () => pg.Pool;
  client: () => CfportalClient;
  /** Pause between status polls given to new batches. */
  pollIntervalMs: number;
}

export const cfApi: CfApiContext = {
  prisma: getPrisma,
  db: getPool,
  client: () => cfportalClient(getPrisma()),
  pollIntervalMs: config.cfportal.pollIntervalMs,
};

/** Aims the CF routes at a test's simulator and pool. */
export function configureCfApi(o: { db: pg.Pool; baseUrl: string; credentials?: CfCredentials; pollIntervalMs?: number }): void {
  const prisma = createPrisma(o.db);
  Object.assign(cfApi, {
    prisma: () => prisma,
    db: () => o.db,
    client: () => cfportalClient(prisma, o.baseUrl, o.credentials),
    pollIntervalMs: o.pollIntervalMs ?? cfApi.pollIntervalMs,
  } satisfies CfApiContext);
}
