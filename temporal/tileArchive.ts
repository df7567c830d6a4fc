/**
 * Starting and observing the tile archive jobs. One rebuild at a time (spec 3.6): the workflow id
 * is the singleton TILE_REBUILD_WORKFLOW_ID for the API, the monitor page and the syncs (which
 * start it as a child with the same id), so a second request while one runs is told so (with the
 * running job's id) and the monitor sees every rebuild. The rebuild starts the overview build
 * workflow (one fixed id too) as its child, or calls an outside tile server's webhook
 * (workflows/tileArchiveRebuild.ts).
 */
import type { Client } from '@temporalio/client';
import { archiveInfo } from '../domain/tiles/service';
import type { TileArchiveRebuildInput, TileArchiveRebuildResult, TileRebuildDetail, TileRebuildProgress } from '../domain/tiles/jobTypes';
import type { ProgressState } from './common/progress';
import { readJob, start } from './jobs';
import { TILE_REBUILD_WORKFLOW_ID } from './common/singletons';

/**
 * Starts the overview build unless one runs (`started: false` then: the webhook route's 409): for
 * an outside caller of that route and the web start-up, on their `client`. On
 * the exports queue, where the heavy tools run.
 */
export async function startOverviewArchiveBuild(client: Client): Promise<{ jobId: string; started: boolean }> {
  const { jobId, started } = await start('tile-archive-build', undefined, { client, existing: 'accept' });
  return { jobId, started };
}

/** Builds the archive when it does not exist yet (a fresh install), without waiting for it. */
export async function ensureOverviewArchive(client: Client): Promise<'exists' | 'started' | 'running'> {
  if (await archiveInfo()) return 'exists';
  return (await startOverviewArchiveBuild(client)).started ? 'started' : 'running';
}

export async function requestTileArchiveRebuild(
  client: Client,
  input: TileArchiveRebuildInput = {},
): Promise<{ jobId: string; alreadyRunning: boolean }> {
  const { jobId, started } = await start('tile-archive-rebuild', input, { client, existing: 'accept' });
  return { jobId, alreadyRunning: !started };
}

export interface RebuildJobState {
  jobId: string;
  status: 'running' | 'done' | 'failed';
  startedAt: string;
  finishedAt?: string;
  progress?: TileRebuildProgress;
  result?: TileArchiveRebuildResult;
  error?: string;
}

/** The latest rebuild job (running or closed), or null when none ever ran. */
export async function tileRebuildJob(client: Client, workflowId = TILE_REBUILD_WORKFLOW_ID): Promise<RebuildJobState | null> {
  const job = await readJob<TileRebuildDetail, TileArchiveRebuildResult>(workflowId, client);
  if (!job) return null;
  const base = { jobId: workflowId, startedAt: job.startedAt.toISOString(), finishedAt: job.closedAt?.toISOString() };
  if (job.status === 'running') return { ...base, status: 'running', progress: job.progress && monitorView(job.progress) };
  if (job.status === 'done') return { ...base, status: 'done', result: job.result };
  return { ...base, status: 'failed', error: job.error };
}

/** The monitor's progress body (`GET /api/geoportal/tiles/status` `job.progress`): the common record with the rebuild's detail beside it. */
function monitorView(p: ProgressState<TileRebuildDetail>): TileRebuildProgress {
  const { status, phase, message, error, detail } = p;
  return { status, phase: phase as TileRebuildProgress['phase'], message, ...(error !== undefined ? { error } : {}), ...detail! };
}
