/**
 * The pg pools of a process, which an entry point's store wraps (domain/db/store.ts
 * processStore): the shared one (raw PostGIS work: COPY, views, advisory locks; Prisma shares it
 * through the driver adapter, domain/db/prisma.ts) and the tile queries' own (getTilePool). Code
 * below an entry point receives them in its store. Tests and tools that need another database
 * build their own with createPool() or createStore().
 */
import pg from 'pg';
import { config } from '../config';

export type Db = pg.Pool | pg.PoolClient | pg.Client;

// No global type parsers here: Prisma shares this pool and reads int8 through pg's defaults, so
// raw queries get int8 (count(*), object_id) as strings; cast with ::int or Number() at the edge.

let shared: pg.Pool | undefined;

/** `options`: server settings for every connection of the pool (libpq `options`, `-c name=value`). */
export function createPool(connectionString: string, max = 10, options?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    ...(options ? { options } : {}),
    application_name: process.env.SERVICE_NAME ?? 'geoportal',
    // A stuck server, a runaway statement or a transaction left open (an outside call awaited
    // inside it) must not hold a connection forever: each ends with an error instead.
    connectionTimeoutMillis: config.db.connectTimeoutMs,
    statement_timeout: config.db.statementTimeoutMs,
    idle_in_transaction_session_timeout: config.db.idleInTransactionTimeoutMs,
  });
  // An idle client losing its server (restart, admin termination) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

export function getPool(): pg.Pool {
  shared ??= createPool(config.db.url);
  return shared;
}

let tiles: pg.Pool | undefined;

/**
 * The server settings of a tile connection, so a tile is one statement with no transaction or
 * SET around it:
 * - JIT off: the status views' per-row subplans push dense tiles over jit_above_cost, and
 *   compiling costs more than the query runs.
 * - Generic plans for the tile statements (prepared once per connection, domain/tiles/mvt.ts):
 *   left to itself, PostgreSQL compares its first five custom plans with the generic one and,
 *   where those first tiles were sparse, planned every later tile again, 0.5–0.9 ms of planning
 *   for 0.4–0.5 ms of execution on a sparse z16 tile. The generic plan runs every zoom as fast
 *   as the custom ones or faster, on the dense store and the sparse one (docs/bench/tiles.md).
 */
export const TILE_SESSION_SETTINGS: Readonly<Record<string, string>> = { jit: 'off', plan_cache_mode: 'force_generic_plan' };

/** The same settings as libpq's `options` (`-c name=value …`), as node-postgres opens connections with them. */
export const TILE_SESSION_OPTIONS = Object.entries(TILE_SESSION_SETTINGS)
  .map(([name, value]) => `-c ${name}=${value}`)
  .join(' ');

/** A pool for the tile statements (TILE_SESSION_OPTIONS), of the tile pool's size. */
export function createTilePool(connectionString: string): pg.Pool {
  return createPool(connectionString, config.tiles.dbPoolMax, TILE_SESSION_OPTIONS);
}

/**
 * The pool of the tile queries (domain/tiles/mvt.ts), beside the shared one, as a tile server
 * keeps its own: a burst of tile requests never waits behind, nor holds up, the rest of the
 * process. Opened on the first tile.
 */
export function getTilePool(): pg.Pool {
  tiles ??= createTilePool(config.db.url);
  return tiles;
}

export async function closePool(): Promise<void> {
  const p = shared;
  const t = tiles;
  shared = undefined;
  tiles = undefined;
  await Promise.all([p?.end(), t?.end()]);
}

/**
 * Runs fn inside BEGIN/COMMIT on one pooled client; rolls back on any error and rethrows it.
 * Given a single client instead of a pool, the transaction runs on that client (it must not be
 * inside a transaction already).
 */
export async function withTransaction<T>(fn: (client: pg.PoolClient | pg.Client) => Promise<T>, db: Db): Promise<T> {
  if (!(db instanceof pg.Pool)) {
    await db.query('BEGIN');
    try {
      const out = await fn(db);
      await db.query('COMMIT');
      return out;
    } catch (err) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
