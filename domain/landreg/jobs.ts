/**
 * The store queries of the sync jobs: the UATs of a county / national / refresh-all run, the
 * counties, a UAT's enriched share. Their kinds and progress record are in jobKinds.ts (pure).
 */
import type { Db } from '../db/pool';

export interface JobUat {
  siruta: number;
  name: string;
  county: string | null;
  workspacePk: number | null;
}

export type JobUatSelection =
  | { kind: 'county'; county: string }
  /** UATs holding features (refresh-all: "all UATs in the store"). */
  | { kind: 'synced' }
  /** As `synced`, least recently synced first (auto-refresh rotates through them night by night). */
  | { kind: 'stalest' };

export async function jobUats(db: Db, sel: JobUatSelection): Promise<JobUat[]> {
  let sql: string;
  let params: unknown[] = [];
  if (sel.kind === 'county') {
    sql = `SELECT siruta, name, county, workspace_pk FROM gis_uats WHERE f_norm(county) = f_norm($1) ORDER BY siruta`;
    params = [sel.county];
  } else if (sel.kind === 'synced') {
    sql = `SELECT u.siruta, u.name, u.county, u.workspace_pk FROM gis_uats u
            WHERE EXISTS (SELECT 1 FROM gis_features f WHERE f.siruta = u.siruta) ORDER BY u.siruta`;
  } else {
    sql = `SELECT u.siruta, u.name, u.county, u.workspace_pk FROM gis_uats u
            LEFT JOIN LATERAL (SELECT max(started_at) AS last FROM gis_sync_runs r WHERE r.siruta = u.siruta AND r.status = 'done') r ON true
            WHERE EXISTS (SELECT 1 FROM gis_features f WHERE f.siruta = u.siruta)
            ORDER BY r.last ASC NULLS FIRST, u.siruta`;
  }
  const r = await db.query<{ siruta: number; name: string; county: string | null; workspace_pk: number | null }>(sql, params);
  return r.rows.map((x) => ({ siruta: x.siruta, name: x.name, county: x.county, workspacePk: x.workspace_pk }));
}

/** Counties of the store in order, for the national run (spec 4.4: "all counties one after another"). */
export async function storeCounties(db: Db): Promise<string[]> {
  const r = await db.query<{ county: string }>(`SELECT DISTINCT county FROM gis_uats WHERE county IS NOT NULL ORDER BY county`);
  return r.rows.map((x) => x.county);
}

/** Share of a UAT's parcels that carry enrichment (0..1). */
export async function enrichmentShare(db: Db, siruta: number): Promise<number> {
  const r = await db.query<{ total: number; enriched: number }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE enrichment IS NOT NULL)::int AS enriched
       FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE'`,
    [siruta],
  );
  const { total, enriched } = r.rows[0];
  return total === 0 ? 0 : enriched / total;
}
