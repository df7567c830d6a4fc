/**
 * The per-minute request counts of api/http/rateLimit.ts in PostgreSQL (issue 44 item 3), an
 * express-rate-limit `Store`: every web process counts into the same `rate_limit_hits` row, so a
 * user's 600 a minute and the wrong-token throttle hold across processes. One upsert per counted
 * request; the window is the database's clock, answered as a wait so the two clocks never meet.
 */
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Db } from '../db/pool';

/** How often a process sweeps the windows long past (their rows are reset on the next hit anyway). */
const SWEEP_MS = 5 * 60_000;

export class PgRateLimitStore implements Store {
  private windowMs = 60_000;
  private sweeping: NodeJS.Timeout | undefined;
  readonly localKeys = false;

  /** `prefix` keeps each limiter's keys apart (the same user is counted by several). */
  constructor(
    private readonly db: Db,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.sweeping ??= setInterval(() => {
      this.db.query(`DELETE FROM rate_limit_hits WHERE reset_at < clock_timestamp() - interval '1 minute'`).catch(() => undefined);
    }, SWEEP_MS).unref();
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const r = await this.db.query<{ hits: number; wait_ms: number }>(
      `SELECT hits, GREATEST(0, extract(epoch FROM reset_at - clock_timestamp()) * 1000)::float8 AS wait_ms
         FROM rate_limit_hits WHERE key = $1 AND reset_at > clock_timestamp()`,
      [this.prefix + key],
    );
    const row = r.rows[0];
    return row ? { totalHits: row.hits, resetTime: new Date(Date.now() + Number(row.wait_ms)) } : undefined;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const r = await this.db.query<{ hits: number; wait_ms: number }>(
      `WITH c AS (SELECT clock_timestamp() AS now)
       INSERT INTO rate_limit_hits AS h (key, hits, reset_at)
       SELECT $1, 1, c.now + make_interval(secs => $2::float8 / 1000) FROM c
       ON CONFLICT (key) DO UPDATE
          SET hits = CASE WHEN h.reset_at <= (SELECT now FROM c) THEN 1 ELSE h.hits + 1 END,
              reset_at = CASE WHEN h.reset_at <= (SELECT now FROM c) THEN EXCLUDED.reset_at ELSE h.reset_at END
       RETURNING h.hits, GREATEST(0, extract(epoch FROM h.reset_at - (SELECT now FROM c)) * 1000)::float8 AS wait_ms`,
      [this.prefix + key, this.windowMs],
    );
    return { totalHits: r.rows[0].hits, resetTime: new Date(Date.now() + Number(r.rows[0].wait_ms)) };
  }

  async decrement(key: string): Promise<void> {
    await this.db.query(`UPDATE rate_limit_hits SET hits = GREATEST(0, hits - 1) WHERE key = $1 AND reset_at > clock_timestamp()`, [this.prefix + key]);
  }

  async resetKey(key: string): Promise<void> {
    await this.db.query(`DELETE FROM rate_limit_hits WHERE key = $1`, [this.prefix + key]);
  }

  shutdown(): void {
    clearInterval(this.sweeping);
  }
}
