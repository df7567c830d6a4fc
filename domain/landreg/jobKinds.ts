/**
 * The sync jobs' pure facts, as the API, the job table and the workflows read them: kinds (=
 * workflow-id kinds), which are background jobs, the progress record and its retention (spec 3.3).
 */
import { DEFAULT_STEPS, layersOf } from '../scheduling/rules';

/** Job kinds of this engine; the job id is the workflow id `<kind>:<scope>[:<ulid>]`. */
export const SYNC_JOB_KINDS = ['sync', 'sync-background', 'sync-county', 'sync-all-counties', 'refresh-all', 'auto-refresh'] as const;
export type SyncJobKind = (typeof SYNC_JOB_KINDS)[number];

/** Export jobs (issue of the export engineer) also block a portal disconnect (spec 3.1). */
export const EXPORT_JOB_KINDS = ['export-bundle', 'export-layer-gpkg'] as const;

/** Every kind whose running job refuses a disconnect (CONTRACT.md 409 jobs_running). */
export const PORTAL_JOB_KINDS: readonly string[] = [...SYNC_JOB_KINDS, ...EXPORT_JOB_KINDS];
export type PortalJobKind = SyncJobKind | (typeof EXPORT_JOB_KINDS)[number];

/**
 * How long a portal job's recorded start (portal_job_starts) is read beside Temporal's listing:
 * the listing shows a start within seconds, so after this the record has nothing left to add.
 */
export const RECENT_START_MS = 120_000;
/**
 * A recorded start whose workflow Temporal does not know (yet): its start is in flight and counts
 * this long; after that the starter died between the record and the start, and it no longer does.
 */
export const START_IN_FLIGHT_MS = 30_000;

/** What Temporal says, asked by id, of a recorded start's workflow. */
export type RecordedStartState = 'running' | 'closed' | 'unknown';

/** Whether a portal job's recorded start, `ageMs` old, still keeps the portal session in use (spec 3.1). */
export function recordedStartRuns(state: RecordedStartState, ageMs: number): boolean {
  if (ageMs >= RECENT_START_MS) return false;
  return state === 'running' || (state === 'unknown' && ageMs < START_IN_FLIGHT_MS);
}

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
