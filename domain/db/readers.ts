/**
 * The readers' server (issue 44, docs/operations.md "A read replica"): the map's tiles, the OGC
 * pages, the geoportal search and the feature panel read from `DATABASE_READ_URL` when it names
 * another server (a streaming replica of the primary); everything that writes, or must read what
 * it just wrote, stays on the store's primary pools.
 *
 * `readOn(store, read)` runs `read` on the replica's pools while the replica answers, and on the
 * primary's otherwise: a connection-class failure (refused, reset, shut down, recovery conflict)
 * marks the replica away for `REPLICA_RETRY_MS` and the same read is run once more on the
 * primary, so a replica that stops costs a reader one retry, never a 500. A read keeps to one
 * server from start to end: a tile's data version and the tile itself come from the same server,
 * so the tile cache never keeps a replica's older tile under the primary's newer version.
 */
import type pg from 'pg';
import { config } from '../config';
import { childLogger } from '../log';
import { createPool, createTilePool } from './pool';

const log = childLogger('readers');

/** The pools a reader reads through: plain queries and the tile statements (TILE_SESSION_OPTIONS). */
export interface Readers {
  pool: pg.Pool;
  tilePool: pg.Pool;
}

export interface Replica extends Readers {
  /** Epoch ms until which the replica is taken as away (0: in use). */
  awayUntil: number;
}

export function createReplica(url: string): Replica {
  return {
    pool: createPool(url, config.db.readPoolMax),
    tilePool: createTilePool(url),
    awayUntil: 0,
  };
}

/**
 * A failure that says the server is not there (or not usable as a replica now), not that the
 * read was wrong: node-postgres' connection errors and SQLSTATE classes 08 (connection
 * exception) and 57P (operator intervention: shut down, crash, cannot connect now), and a query
 * cancelled by a conflict with the standby's recovery (40001 on a hot standby).
 */
export function replicaAway(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  if (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND)$/.test(code)) return true;
  if (code.startsWith('08') || code.startsWith('57P') || code === '40001') return true;
  const msg = e?.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(msg);
}

export async function readOn<T>(
  store: Readers & { replica?: Replica },
  read: (readers: Readers) => Promise<T>,
): Promise<T> {
  const replica = store.replica;
  const primary: Readers = { pool: store.pool, tilePool: store.tilePool };
  if (!replica || Date.now() < replica.awayUntil) return read(primary);
  try {
    return await read(replica);
  } catch (err) {
    if (!replicaAway(err)) throw err;
    if (replica.awayUntil === 0 || Date.now() >= replica.awayUntil) {
      log.warn({ err: (err as Error).message }, 'read replica unavailable; readers use the primary');
    }
    replica.awayUntil = Date.now() + config.db.replicaRetryMs;
    return read(primary);
  }
}

export async function closeReplica(replica: Replica | undefined): Promise<void> {
  if (replica) await Promise.all([replica.pool.end(), replica.tilePool.end()]);
}
