/**
 * Portal jobs' starts as recorded just before their workflows start (table portal_job_starts,
 * migration 041): what spec 3.1's disconnect rule reads beside Temporal's listing, which shows a
 * start only a moment later. temporal/jobs.ts records a start (`start`) and joins the recent ones
 * to the listing (`runningPortalJobs`), both on the records of the store they are handed
 * (`portalStartRecords`: the landreg service's `portalStarts`); whether a start still counts is
 * `recordedStartRuns`.
 */
import type { Db } from '../db/pool';
import { RECENT_START_MS } from './jobKinds';

export interface PortalJobStart {
  jobId: string;
  workflowId: string;
  kind: string;
  siruta?: number;
  /** The user who started it (the per-user cap counts from the record); none for a schedule's or a cron's. */
  startedBy?: string;
}

export interface RecordedStart extends PortalJobStart {
  /** Milliseconds since the start was recorded, by the database's clock. */
  ageMs: number;
}

/**
 * Records a start about to happen (and prunes the records no reader needs any more). False when a
 * recent record of the same job id is already there (a singleton's running start): that record is
 * not this caller's to drop if its own start is refused.
 */
export async function recordPortalJobStart(db: Db, namespace: string, s: PortalJobStart): Promise<boolean> {
  const r = await db.query(
    `WITH pruned AS (
       DELETE FROM portal_job_starts
        WHERE started_at < clock_timestamp() - make_interval(secs => $6::float8 / 1000) AND NOT (namespace = $1 AND job_id = $2)
     )
     INSERT INTO portal_job_starts (namespace, job_id, workflow_id, kind, siruta, started_by) VALUES ($1, $2, $3, $4, $5, $7)
     ON CONFLICT (namespace, job_id) DO UPDATE
       SET workflow_id = EXCLUDED.workflow_id, kind = EXCLUDED.kind, siruta = EXCLUDED.siruta, started_by = EXCLUDED.started_by, started_at = clock_timestamp()
       WHERE portal_job_starts.started_at < clock_timestamp() - make_interval(secs => $6::float8 / 1000)
     RETURNING job_id`,
    [namespace, s.jobId, s.workflowId, s.kind, s.siruta ?? null, RECENT_START_MS, s.startedBy ?? null],
  );
  return r.rowCount === 1;
}

/** Drops the record of a start that did not happen (refused, or failed). */
export async function forgetPortalJobStart(db: Db, namespace: string, jobId: string): Promise<void> {
  await db.query(`DELETE FROM portal_job_starts WHERE namespace = $1 AND job_id = $2`, [namespace, jobId]);
}

/** The starts recorded within RECENT_START_MS in `namespace`, oldest first. */
export async function recentPortalJobStarts(db: Db, namespace: string): Promise<RecordedStart[]> {
  const r = await db.query<{ job_id: string; workflow_id: string; kind: string; siruta: number | null; started_by: string | null; age_ms: number }>(
    `SELECT job_id, workflow_id, kind, siruta, started_by, (extract(epoch FROM clock_timestamp() - started_at) * 1000)::float8 AS age_ms
       FROM portal_job_starts
      WHERE namespace = $1 AND started_at >= clock_timestamp() - make_interval(secs => $2::float8 / 1000)
      ORDER BY started_at`,
    [namespace, RECENT_START_MS],
  );
  return r.rows.map((row) => ({
    jobId: row.job_id,
    workflowId: row.workflow_id,
    kind: row.kind,
    ...(row.siruta !== null ? { siruta: row.siruta } : {}),
    ...(row.started_by !== null ? { startedBy: row.started_by } : {}),
    ageMs: row.age_ms,
  }));
}

/** The records of one store, as the job starts and the disconnect rule take them (temporal/jobs.ts). */
export interface PortalStartRecords {
  record(namespace: string, s: PortalJobStart): Promise<boolean>;
  forget(namespace: string, jobId: string): Promise<void>;
  recent(namespace: string): Promise<RecordedStart[]>;
}

export function portalStartRecords(db: Db): PortalStartRecords {
  return {
    record: (namespace, s) => recordPortalJobStart(db, namespace, s),
    forget: (namespace, jobId) => forgetPortalJobStart(db, namespace, jobId),
    recent: (namespace) => recentPortalJobStarts(db, namespace),
  };
}
