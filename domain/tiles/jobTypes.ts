/**
 * What the tile archive jobs take and answer (workflows/tileArchiveRebuild.ts,
 * overviewArchiveBuild.ts, activities/tiles.ts): shared by the workflows, their activities and
 * their starters (temporal/tileArchive.ts through domain/jobWorkflows.ts).
 */

export interface TileArchiveRebuildInput {
  pollIntervalMs?: number;
  timeoutMs?: number;
}

export interface TileRebuildProgress {
  status: 'running' | 'done' | 'failed';
  phase: 'request' | 'building' | 'waiting' | 'done' | 'failed' | 'timeout';
  /** Our build workflow started by this job, or one already running. */
  build?: RebuildRequest;
  /** The outside builder's webhook answer. */
  webhook?: RebuildRequest;
  /** Stamp reads while waiting for an outside builder. */
  polls: number;
  elapsedMs: number;
  timeoutMs: number;
  /** Share of the wait limit used, 0..100 (the UI's bar while the build runs). */
  percent: number;
  message: string;
  error?: string;
}

export type TileArchiveRebuildResult =
  | { builder: 'ours'; build: RebuildRequest; buildId: string; waitedMs: number }
  | { builder: 'webhook'; webhook: RebuildRequest; previous: ArchiveStamp | null; current: ArchiveStamp; polls: number; waitedMs: number };

/** What the rebuild shows beyond the common progress record (the monitor's wait and bar). */
export type TileRebuildDetail = Omit<TileRebuildProgress, 'status' | 'phase' | 'message' | 'error'>;

export interface OverviewArchiveBuildResult {
  buildId: string;
}

/** A build this request started, or one already running (a valid state, spec 3.6). */
export type RebuildRequest = 'started' | 'already_running';

/** What identifies one version of the archive; null when it does not exist. */
export interface ArchiveStamp {
  lastModified: string;
  etag: string;
}

