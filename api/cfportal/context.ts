/**
 * What the CF routes talk to: the store (Prisma and pg) and the certificate portal. Production
 * uses the process-wide defaults; an integration test points them at its own simulator, database
 * pool and account slot (its workflows run in its own Temporal namespace, test/helpers/temporal.ts).
 */
import type pg from 'pg';
import { config } from '../../domain/config';
import { getPool } from '../../domain/db/pool';
import { createPrisma, getPrisma, type PrismaClient } from '../../domain/db/prisma';
import { cfportalClient, configuredAccountSource, type CfAccountSource } from '../../domain/cfportal/session';
import type { CfportalClient } from '../../domain/cfportal/client';

export interface CfApiContext {
  prisma: () => PrismaClient;
  db: () => pg.Pool;
  /** A client for the account in use. */
  client: () => CfportalClient;
  accounts: CfAccountSource;
  /** Pause between status polls given to new batches. */
  pollIntervalMs: number;
  /** How long a new batch waits for an unlisted submit before asking an admin to reconcile. */
  listingWaitMs: number;
}

export const cfApi: CfApiContext = {
  prisma: getPrisma,
  db: getPool,
  client: () => cfportalClient(getPrisma(), cfApi.accounts),
  accounts: configuredAccountSource(),
  pollIntervalMs: config.cfportal.pollIntervalMs,
  listingWaitMs: config.cfportal.submitListingWaitMs,
};

/** Aims the CF routes at a test's simulator, pool and account slot. */
export function configureCfApi(o: { db: pg.Pool; baseUrl: string; accounts: CfAccountSource; pollIntervalMs?: number; listingWaitMs?: number }): void {
  const prisma = createPrisma(o.db);
  Object.assign(cfApi, {
    prisma: () => prisma,
    db: () => o.db,
    client: () => cfportalClient(prisma, o.accounts, o.baseUrl),
    accounts: o.accounts,
    pollIntervalMs: o.pollIntervalMs ?? cfApi.pollIntervalMs,
    listingWaitMs: o.listingWaitMs ?? cfApi.listingWaitMs,
  } satisfies CfApiContext);
}
