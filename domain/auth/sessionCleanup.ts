/**
 * Housekeeping of the server-side sessions (CONTRACT.md section 2): rows past their absolute
 * expiry or idle longer than the idle timeout are dead weight, and the cookie check already
 * refuses them, so deleting them changes no behaviour. One function, used by sign-in and by the
 * hourly `sessionHousekeeping` workflow.
 */
import type { Db } from '../db/pool';
import { SESSION_IDLE_TIMEOUT_SECONDS } from './rules';

/**
 * Rows per DELETE: small batches keep each statement's locks short, so sign-ins touching
 * app_sessions never wait behind a large purge.
 */
export const SESSION_PURGE_BATCH = 5000;

/**
 * Deletes every session expired at `now` (absolute expiry passed, or not seen within the idle
 * timeout), in batches; returns how many were deleted.
 */
export async function deleteExpiredSessions(
  db: Db,
  now: Date = new Date(),
  batchSize: number = SESSION_PURGE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const res = await db.query(
      `DELETE FROM app_sessions
        WHERE id IN (SELECT id FROM app_sessions
                      WHERE expires_at <= $1 OR last_seen_at <= $1 - make_interval(secs => $3)
                      LIMIT $2)`,
      [now, batchSize, SESSION_IDLE_TIMEOUT_SECONDS],
    );
    const n = res.rowCount ?? 0;
    total += n;
    if (n < batchSize) return total;
  }
}
