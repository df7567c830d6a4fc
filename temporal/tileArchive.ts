/**
 * Starting and observing the tile archive jobs. One rebuild at a time (spec 3.6): the workflow id
 * is the singleton TILE_REBUILD_WORKFLOW_ID for the API, the monitor page and the syncs (which
 * start it as a child with the same id), so a second request while one runs is told so (with the
 * running job's id) and the monitor sees every rebuild. The rebuild starts the overview build
 * workflow (one fixed id too) as its child, or calls an outside tile server's webhook
 * (workflows/tileArchiveRebuild.ts).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { archiveInfo } from '../domain/tiles/archiveStore';
import type { TileArchiveRebuildInput, TileArchiveRebuildResult, TileRebuildProgress } from '../workflows/tileArchiveRebuild';
import { failureMessage } from './common/failures';
import { queryRunning, start } from './jobs';
import { TILE_REBUILD_WORKFLOW_ID } from './common/singletons';

/**
 * Starts the overview build unless one runs (`started: false` then: the webhook route's 409): for
 * an outside caller of that route and the web start-up. On the exports queue, where the heavy
 * tools run.
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
  const handle = client.workflow.getHandle(workflowId);
  let d;
  try {
    d = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
  const base = { jobId: workflowId, startedAt: d.startTime.toISOString(), finishedAt: d.closeTime?.toISOString() };
  if (d.status.name === 'RUNNING') {
    const progress = await queryRunning<TileRebuildProgress>(client, handle, 'progress');
    return { ...base, status: 'running', progress };
  }
  if (d.status.name === 'COMPLETED') {
    return { ...base, status: 'done', result: (await handle.result()) as TileArchiveRebuildResult };
  }
  let error: string = d.status.name;
  try {
    await handle.result();
  } catch (err) {
    error = failureMessage(err);
  }
  return { ...base, status: 'failed', error };
}
