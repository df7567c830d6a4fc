/**
 * Housekeeping of the server-side sessions (CONTRACT.md portal sessions): expired rows are dead
 * weight, and the cookie check already refuses them, so deleting them changes no behaviour.
 */
import type { Db } from '../db/pool';

/**
 * Rows per DELETE: small batches keep each statement's locks short, so sign-ins touching
 * app_sessions never wait behind a large purge.
 */
export const SESSION_PURGE_BATCH = 5000;

/** Deletes every session whose expiry is at or before `now`; returns how many were deleted. */
export async function deleteExpiredSessions(
  db: Db,
  now: Date = new Date(),
  batchSize: number = SESSION_PURGE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const res = await db.query(
      `DELETE FROM app_sessions
        WHERE id IN (SELECT id FROM app_sessions WHERE expires_at <= $1 LIMIT $2)`,
      [now, batchSize],
    );
    const n = res.rowCount ?? 0;
    total += n;
    if (n < batchSize) return total;
  }
}
