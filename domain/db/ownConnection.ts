/**
 * Work on one connection of its own (its statements one after another, however many it sends
 * at once: the pool is everyone's), which PostgreSQL cancels when `signal` aborts (the caller
 * left; pg_cancel_backend), so a read nobody will use stops costing the database at once. The
 * connection is then closed rather than pooled, so a cancel that arrives late never meets the
 * next borrower's statement. On a single client the work runs on it as it is.
 */
import type pg from 'pg';
import { errors } from '../errors';
import type { Db } from './pool';

const isPool = (db: Db): db is pg.Pool => 'totalCount' in db && typeof (db as pg.Pool).connect === 'function';

export async function onOwnConnection<T>(db: Db, signal: AbortSignal | undefined, work: (conn: Db) => Promise<T>): Promise<T> {
  if (!isPool(db)) return work(db);
  if (signal?.aborted) throw errors.clientClosed();
  const client = await db.connect();
  const pid = (client as unknown as { processID: number }).processID;
  const cancel = () => void db.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    if (signal?.aborted) throw errors.clientClosed();
    return await work(client);
  } catch (err) {
    // The statement PostgreSQL cancelled because the caller left: say so, not "canceling statement".
    throw signal?.aborted ? errors.clientClosed() : err;
  } finally {
    signal?.removeEventListener('abort', cancel);
    client.release(signal?.aborted === true);
  }
}
