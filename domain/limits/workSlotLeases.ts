/**
 * Heavy-work slots shared by every web process (issue 44 item 3): in shared mode a held slot of
 * `WorkSlots` (domain/concurrency.ts) is a row of `work_slot_leases`. A claim is one short
 * transaction under the kind's advisory lock: it inserts only while the kind's live rows are under
 * the global cap and the caller's under theirs, so two processes never both take the last slot.
 * The process renews its rows while the work runs; a killed process stops renewing and its slots
 * expire after `ttlMs` (the house's lease pattern, domain/db/lease.ts), never held for ever.
 */
import { randomUUID } from 'node:crypto';
import { withTransaction, type Db } from '../db/pool';
import { childLogger } from '../log';

const log = childLogger('limits');

export type Claim = { lease: string } | { refused: 'user' | 'global' };

export class WorkSlotLeases {
  /** Rows this process holds, renewed every third of the TTL. */
  private readonly held = new Set<string>();
  private renewing: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    readonly ttlMs: number,
  ) {}

  async claim(kind: string, callerKey: string, global: number, perUser: number): Promise<Claim> {
    const id = randomUUID();
    const refused = await withTransaction(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('work_slot_leases'), hashtext($1))`, [kind]);
      const r = await c.query<{ total: number; mine: number }>(
        `SELECT count(*)::int AS total, (count(*) FILTER (WHERE caller_key = $2))::int AS mine
           FROM work_slot_leases WHERE kind = $1 AND expires_at > clock_timestamp()`,
        [kind, callerKey],
      );
      const { total, mine } = r.rows[0];
      if (mine >= perUser) return 'user' as const;
      if (total >= global) return 'global' as const;
      // Expired rows of the kind go while the lock is held: the table stays as small as the work in flight.
      await c.query(`DELETE FROM work_slot_leases WHERE kind = $1 AND expires_at <= clock_timestamp()`, [kind]);
      await c.query(
        `INSERT INTO work_slot_leases (id, kind, caller_key, expires_at)
         VALUES ($1, $2, $3, clock_timestamp() + make_interval(secs => $4::float8 / 1000))`,
        [id, kind, callerKey, this.ttlMs],
      );
      return null;
    }, this.db);
    if (refused) return { refused };
    this.held.add(id);
    this.renewing ??= setInterval(() => void this.renew(), Math.max(100, Math.floor(this.ttlMs / 3))).unref();
    return { lease: id };
  }

  /** Gives the slot back (settles once the row is gone); a failed delete only means the row expires on its own. */
  async release(lease: string): Promise<void> {
    if (!this.held.delete(lease)) return;
    await this.db.query(`DELETE FROM work_slot_leases WHERE id = $1`, [lease]).catch((err: unknown) => {
      log.warn({ err: (err as Error).message }, 'work slot lease not deleted; it expires on its own');
    });
  }

  private async renew(): Promise<void> {
    if (!this.held.size) return;
    try {
      await this.db.query(`UPDATE work_slot_leases SET expires_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000) WHERE id = ANY($1::uuid[])`, [
        [...this.held],
        this.ttlMs,
      ]);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'work slot leases not renewed');
    }
  }

  /** Stops renewing without deleting anything: what a killed process leaves (tests), and shutdown. */
  stop(): void {
    clearInterval(this.renewing);
    this.renewing = undefined;
    this.held.clear();
  }
}
