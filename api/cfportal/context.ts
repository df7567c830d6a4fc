/**
 * What the CF routes talk to: the store (Prisma and pg) and the certificate portal. The app
 * builds it from its store and the options of `createApp({cf})`, which default to config; an
 * integration test passes its own simulator, account slot and batch timings (its workflows run
 * in its own Temporal namespace, test/helpers/temporal.ts).
 */
import type pg from 'pg';
import { config } from '../../domain/config';
import type { PrismaClient } from '../../domain/db/prisma';
import type { Store } from '../../domain/db/store';
import { cfportalClient, configuredAccountSource, type CfAccountSource } from '../../domain/cfportal/session';
import type { CfportalClient } from '../../domain/cfportal/client';

export interface CfRouteOptions {
  /** The certificate portal's address (default config.cfportal's). */
  baseUrl?: string;
  /** The account slot and configured account (default: the shared slot, config's account). */
  accounts?: CfAccountSource;
  /** Pause between status polls given to new batches. */
  pollIntervalMs?: number;
  /** How long a new batch waits for an unlisted submit before asking an admin to reconcile. */
  listingWaitMs?: number;
}

export interface CfApiContext {
  prisma: PrismaClient;
  db: pg.Pool;
  /** A client for the account in use. */
  client: () => CfportalClient;
  accounts: CfAccountSource;
  pollIntervalMs: number;
  listingWaitMs: number;
}

export function cfApiContext(store: Store, o: CfRouteOptions = {}): CfApiContext {
  const accounts = o.accounts ?? configuredAccountSource();
  return {
    prisma: store.prisma,
    db: store.pool,
    client: () => cfportalClient(store.prisma, store.pool, accounts, o.baseUrl),
    accounts,
    pollIntervalMs: o.pollIntervalMs ?? config.cfportal.pollIntervalMs,
    listingWaitMs: o.listingWaitMs ?? config.cfportal.submitListingWaitMs,
  };
}
