/**
 * Sync jobs as the API and the workflows see them: kinds (= workflow-id kinds), which are
 * background jobs, the progress record and its retention (spec 3.3), and the store queries that
 * pick the UATs of a county / national / refresh-all run.
 */
import type { Db } from '../db/pool';
import { notify } from '../notifications/service';
import type { StartDelivery } from '../areaDeps';
import { DEFAULT_STEPS, layersOf } from '../scheduling/rules';

/** Job kinds of this engine; the job id is the workflow id `<kind>:<scope>[:<ulid>]`. */
export const SYNC_JOB_KINDS = ['sync', 'sync-background', 'sync-county', 'sync-all-counties', 'refresh-all', 'auto-refresh'] as const;
export type SyncJobKind = (typeof SYNC_JOB_KINDS)[number];

/** Export jobs (issue of the export engineer) also block a portal disconnect (spec 3.1). */
export const EXPORT_JOB_KINDS = ['export-bundle', 'export-layer-gpkg'] as const;

/** Every kind whose running job refuses a disconnect (CONTRACT.md 409 jobs_running). */
export const PORTAL_JOB_KINDS: readonly string[] = [...SYNC_JOB_KINDS, ...EXPORT_JOB_KINDS];

/** Spec 3.3 / spec 8: background jobs keep their progress for 1 hour, normal jobs for 60 seconds. */
export const BACKGROUND_PROGRESS_RETENTION_MS = 60 * 60_000;
export const NORMAL_PROGRESS_RETENTION_MS = 60_000;

const BACKGROUND_KINDS = new Set<string>(['sync-background', 'sync-county', 'sync-all-counties', 'refresh-all', 'auto-refresh', ...EXPORT_JOB_KINDS]);

export function progressRetentionMs(kind: string): number {
  return BACKGROUND_KINDS.has(kind) ? BACKGROUND_PROGRESS_RETENTION_MS : NORMAL_PROGRESS_RETENTION_MS;
}

/** Whether a closed job's progress is still served (spec 3.3), else the progress route answers 404. */
export function progressStillKept(kind: string, closedAt: Date, now: Date): boolean {
  return now.getTime() - closedAt.getTime() <= progressRetentionMs(kind);
}

/** The layers a UAT sync covers by default: parcels (step T) and buildings (step C), spec 2.6. */
export const DEFAULT_SYNC_LAYERS = layersOf(DEFAULT_STEPS);


/** CONTRACT.md `GET /api/landreg/progress` answer. */
export interface JobProgress {
  jobId: string;
  kind: string;
  status: 'running' | 'done' | 'failed';
  phase: string;
  current: number;
  total: number;
  percent: number;
  message: string;
  startedAt: string;
  finishedAt?: string;
  result?: unknown;
  error?: string;
}

export function percentOf(current: number, total: number): number {
  if (total <= 0) return 0;
  return Math.max(0, Math.min(100, Math.round((current / total) * 100)));
}

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

/** Spec 6: "sync of a county finished" is an in-app notification (the notifications module). */
export async function notifyUser(db: Db, deliver: StartDelivery, n: { userId: string; type: 'county-sync-done'; title: string; body: string; link?: string }): Promise<void> {
  await notify(db, deliver, n);
}
