/**
 * Starting and observing the tile archive rebuild (spec 3.6). One rebuild at a time: the workflow
 * id is the singleton `tile-archive-rebuild:overview`, so a second request while one runs is told
 * so (with the running job's id) instead of starting another. Used by the API (monitor page,
 * POST /api/geoportal/tiles/rebuild) and by sync workflows' callers that want a rebuild.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { TileArchiveRebuildInput, TileArchiveRebuildResult, TileRebuildProgress } from '../workflows/tileArchiveRebuild';
import { singletonWorkflowId } from './ids';
import { TaskQueue } from './queues';

export const TILE_REBUILD_WORKFLOW_ID = singletonWorkflowId('tile-archive-rebuild', 'overview');

export interface RebuildRequestOptions {
  taskQueue?: string;
  workflowId?: string;
  input?: TileArchiveRebuildInput;
}

export async function requestTileArchiveRebuild(
  client: Client,
  opts: RebuildRequestOptions = {},
): Promise<{ jobId: string; alreadyRunning: boolean }> {
  const jobId = opts.workflowId ?? TILE_REBUILD_WORKFLOW_ID;
  try {
    await client.workflow.start('tileArchiveRebuild', {
      workflowId: jobId,
      taskQueue: opts.taskQueue ?? TaskQueue.store,
      args: [opts.input ?? {}],
    });
    return { jobId, alreadyRunning: false };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { jobId, alreadyRunning: true };
    throw err;
  }
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
    const progress = await handle.query<TileRebuildProgress>('progress').catch(() => undefined);
    return { ...base, status: 'running', progress };
  }
  if (d.status.name === 'COMPLETED') {
    return { ...base, status: 'done', result: (await handle.result()) as TileArchiveRebuildResult };
  }
  let error: string = d.status.name;
  try {
    await handle.result();
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause;
    error = cause?.message ?? (err as Error).message;
  }
  return { ...base, status: 'failed', error };
}
