/**
 * Heavy reads a person starts: statements over a whole UAT (the UAT dashboard's scans and its top
 * owners, the boundary check's spatial test of every parcel) or the whole store (a page of
 * `GET /api/landreg/features` walks every row before its offset). Without a bound, two dashboards of a
 * 200,000-parcel UAT took five connections each, in parallel, of the ten the pool shares with
 * every session check, and ran on after their callers had gone. Through here each takes a slot of
 * `heavyReadSlots` (HEAVY_READ_MAX_PER_USER per user, HEAVY_READ_MAX_CONCURRENT in all, a short
 * queue; 429 past them), runs on one connection of its own, and is cancelled in PostgreSQL when
 * its caller leaves (./ownConnection.ts). An API route and a page pass the same caller: the
 * user's key and the request's signal.
 */
import { config } from '../config';
import { WorkSlots, type Caller } from '../concurrency';
import { errors } from '../errors';
import { onOwnConnection } from './ownConnection';
import type { Db } from './pool';

export const heavyReadSlots = new WorkSlots({
  kind: 'heavyRead',
  global: () => config.limits.heavyRead.global,
  perUser: () => config.limits.heavyRead.perUser,
  retryAfterSeconds: 5,
  messages: {
    user: 'Aveți deja prea multe citiri mari din baza locală în lucru; așteptați să se termine, apoi reîncercați.',
    global: 'Se fac deja prea multe citiri mari din baza locală în acest moment; reîncercați în câteva secunde.',
  },
  // Colleagues' dashboards at the same moment wait their turn a little rather than being refused.
  queue: { max: 16, waitMs: 10_000 },
});

export async function heavyRead<T>(db: Db, caller: Caller, work: (conn: Db) => Promise<T>): Promise<T> {
  const release = await heavyReadSlots.acquire(caller.key, caller.signal).catch((err: unknown) => {
    // Left while waiting for a turn: the client's leaving, not a failure (no 500 in the error log).
    throw caller.signal?.aborted ? errors.clientClosed() : err;
  });
  try {
    return await onOwnConnection(db, caller.signal, work);
  } finally {
    release();
  }
}
