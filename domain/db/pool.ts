/**
 * The one pg Pool of a process (raw PostGIS work: COPY, ST_AsMVT, views, advisory locks). Prisma
 * shares it through the driver adapter (domain/db/prisma.ts), so a process holds one set of
 * connections. Tests and tools that need another database build their own with createPool().
 */
import pg from 'pg';
import { config } from '../config';

export type Db = pg.Pool | pg.PoolClient | pg.Client;

// No global type parsers here: Prisma shares this pool and reads int8 through pg's defaults, so
// raw queries get int8 (count(*), object_id) as strings; cast with ::int or Number() at the edge.

let shared: pg.Pool | undefined;

export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
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

export async function closePool(): Promise<void> {
  const p = shared;
  shared = undefined;
  if (p) await p.end();
}

/**
 * Runs fn inside BEGIN/COMMIT on one pooled client; rolls back on any error and rethrows it.
 * Given a single client instead of a pool, the transaction runs on that client (it must not be
 * inside a transaction already).
 */
export async function withTransaction<T>(fn: (client: pg.PoolClient | pg.Client) => Promise<T>, db: Db = getPool()): Promise<T> {
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
