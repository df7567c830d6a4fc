/**
 * What other areas read of the CF extracts (cf_extracts is this area's table,
 * domain/db/owners.ts): the map's extract status of a parcel and the digest's expiring extracts.
 */
import type { Db } from '../db/pool';

export interface NewestExtract {
  id: string;
  status: string;
  version: number;
  expiresAt: Date | null;
  /** A PDF is stored (in S3 or, for older rows, in the row). */
  hasFile: boolean;
}

/**
 * The newest extract of the parcel (highest version, then newest), cancelled orders ignored.
 * Without `siruta`, any UAT's extract of that cadastral number answers.
 */
export async function newestExtract(db: Db, nrCad: string, siruta: number | undefined): Promise<NewestExtract | null> {
  const r = await db.query<{ id: string; status: string; version: number; expires_at: Date | null; has_file: boolean }>(
    `SELECT id, status, version, expires_at, (s3_key IS NOT NULL OR pdf_data IS NOT NULL) AS has_file
       FROM cf_extracts
      WHERE nr_cadastral = $1 AND ($2::int IS NULL OR siruta = $2) AND status <> 'cancelled'
      ORDER BY version DESC, created_at DESC
      LIMIT 1`,
    [nrCad, siruta ?? null],
  );
  const row = r.rows[0];
  return row ? { id: row.id, status: row.status, version: row.version, expiresAt: row.expires_at, hasFile: row.has_file } : null;
}

export interface ExpiringExtract {
  id: string;
  nrCadastral: string;
  siruta: number | null;
  expiresAt: Date;
}

/** The user's completed extracts still valid at `now` that expire within `days` days, soonest first (at most 100). */
export async function expiringExtracts(db: Db, userId: string, now: Date, days: number): Promise<ExpiringExtract[]> {
  const r = await db.query<{ id: string; nr_cadastral: string; siruta: number | null; expires_at: Date }>(
    `SELECT id, nr_cadastral, siruta, expires_at FROM cf_extracts
      WHERE user_id = $1 AND status = 'completed' AND expires_at > $2 AND expires_at <= $2 + make_interval(days => $3)
      ORDER BY expires_at LIMIT 100`,
    [userId, now, days],
  );
  return r.rows.map((x) => ({ id: x.id, nrCadastral: x.nr_cadastral, siruta: x.siruta, expiresAt: x.expires_at }));
}
