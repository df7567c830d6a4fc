/**
 * The store of a process: its pg pools and the Prisma client on the shared one. Built once by
 * each entry point (api/server.ts, workers/main.ts, a script) and passed down to the app, its
 * routers, the Remix loaders (through the load context) and the activity factories; nothing
 * below an entry point reaches for a process-wide pool. A test builds its own, on the stack's
 * database or one of its own (`createStore(url)`, or `storeOn(pool)` around a pool it has).
 */
import type pg from 'pg';
import { config } from '../config';
import { closePool, createPool, createTilePool, getPool, getTilePool } from './pool';
import { createPrisma, disconnectPrisma, getPrisma, type PrismaClient } from './prisma';
import { closeReplica, createReplica, type Replica } from './readers';

export interface Store {
  /** Raw PostGIS work (COPY, views, advisory locks, named statements); Prisma shares it. */
  pool: pg.Pool;
  /** Plain CRUD, on `pool` through the driver adapter. */
  prisma: PrismaClient;
  /**
   * The tile queries' own pool (domain/tiles/mvt.ts renderTile), as a tile server keeps its own:
   * JIT off on its connections, and a burst of tiles never waits behind the rest of the process.
   * pg opens connections on first use, so a process that serves no tile opens none.
   */
  tilePool: pg.Pool;
  /**
   * The readers' replica when `DATABASE_READ_URL` names another server: tiles, OGC, search and
   * the feature panel read through `readOn(store, …)` (domain/db/readers.ts), which falls back
   * to the pools above while it is away. Absent: the readers read the primary.
   */
  replica?: Replica;
  /** Ends what this store opened (not a pool passed to `storeOn`). */
  close(): Promise<void>;
}

export function createStore(url = config.db.url, opts: { max?: number; readUrl?: string } = {}): Store {
  const pool = createPool(url, opts.max);
  const tilePool = createTilePool(url);
  const prisma = createPrisma(pool);
  const readUrl = opts.readUrl ?? (url === config.db.url ? config.db.readUrl : url);
  const replica = readUrl !== url ? createReplica(readUrl) : undefined;
  return {
    pool,
    prisma,
    tilePool,
    replica,
    async close() {
      await prisma.$disconnect();
      await Promise.all([pool.end(), tilePool.end(), closeReplica(replica)]);
    },
  };
}

/** A store around a pool the caller owns (a test's, a worker's): tiles share it; close() ends only Prisma. */
export function storeOn(pool: pg.Pool): Store {
  const prisma = createPrisma(pool);
  return { pool, prisma, tilePool: pool, close: () => prisma.$disconnect() };
}

/**
 * The store of an entry point (api/server.ts, workers/main.ts, scripts): the process's pools, so
 * the code that still reaches for them (docs/architecture.md "Dependencies passed in") shares
 * the same connections.
 */
export function processStore(): Store {
  const replica = config.db.readUrl !== config.db.url ? createReplica(config.db.readUrl) : undefined;
  return {
    pool: getPool(),
    prisma: getPrisma(),
    tilePool: getTilePool(),
    replica,
    close: async () => {
      await disconnectPrisma();
      await Promise.all([closePool(), closeReplica(replica)]);
    },
  };
}
