/**
 * What the landreg routes talk to: the store's pool and Prisma client, and a portal client on the
 * pool. The app builds it from its store and `createApp({landreg})`, whose portal address
 * defaults to config; an integration test passes its own simulator (its jobs go to its own
 * Temporal namespace, test/helpers/temporal.ts, so no queue is aimed here).
 */
import type pg from 'pg';
import type { PrismaClient } from '../../domain/db/prisma';
import type { Store } from '../../domain/db/store';
import { LandregClient } from '../../domain/landreg/client';

export interface LandregRouteOptions {
  /** The land-registry portal's address (default config.landreg.baseUrl). */
  baseUrl?: string;
  /** The portal's rate for this app's client (default config.landreg.requestsPerSecond). */
  requestsPerSecond?: number;
}

export interface LandregApi {
  db: pg.Pool;
  prisma: PrismaClient;
  client: LandregClient;
}

export function landregApiOn(store: Store, opts: LandregRouteOptions = {}): LandregApi {
  return { db: store.pool, prisma: store.prisma, client: new LandregClient({ db: store.pool, ...opts }) };
}
