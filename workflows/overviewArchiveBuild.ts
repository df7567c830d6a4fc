/**
 * The PMTiles overview build (EXTERNAL-SERVICES.md "Tile archive"): GDAL export, Protomaps
 * conversion and upload, as one heartbeating activity on the exports queue (CPU heavy, its
 * files in a temporary directory of the worker that runs it, so a retry starts over). One at a
 * time by its fixed workflow id (temporal/common/singletons.ts): the rebuild job starts it as a
 * child, the webhook route for an outside caller and the web start-up start it from the client
 * (409 / already running while it runs). Its end is signalled to the rebuild job, which waits for
 * a build it found running. The `progress` query has the shape of every job
 * (temporal/common/progress.ts).
 */
import { defineSignal, getExternalWorkflowHandle, proxyActivities, setHandler } from '@temporalio/workflow';
import type { TileBuildActivities } from '../activities/tiles';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { TILE_REBUILD_WORKFLOW_ID } from '../temporal/common/singletons';
import type { OverviewArchiveBuildResult } from '../domain/tiles/jobTypes';

const build = proxyActivities<TileBuildActivities>({
  taskQueue: TaskQueue.exports,
  // A national build takes minutes; each of its two tool steps is killed after 25 (domain/tiles/archive.ts).
  startToCloseTimeout: '1 hour',
  // The activity heartbeats every few seconds while a tool runs: a dead worker is noticed in a minute.
  heartbeatTimeout: '1 minute',
  retry: RETRY.build,
});

/** How a build ended: its id, or the failure's message. */
export interface OverviewBuilt {
  buildId?: string;
  error?: string;
}

/** Sent by the build to the rebuild job (workflows/tileArchiveRebuild.ts) when it ends. */
export const overviewBuiltSignal = defineSignal<[OverviewBuilt]>('overviewBuilt');

/** Tells a running rebuild job; none running is the ordinary case. */
async function announce(outcome: OverviewBuilt): Promise<void> {
  await getExternalWorkflowHandle(TILE_REBUILD_WORKFLOW_ID)
    .signal(overviewBuiltSignal, outcome)
    .catch(() => undefined);
}

export async function overviewArchiveBuild(): Promise<OverviewArchiveBuildResult> {
  const progress: ProgressState = { status: 'running', phase: 'build', current: 0, total: 1, message: 'Se construiește arhiva de ansamblu…' };
  setHandler(progressQuery, () => progress);
  try {
    const r = await build.buildOverviewArchive();
    Object.assign(progress, { status: 'done', phase: 'done', current: 1, message: 'Arhiva de ansamblu a fost construită.' });
    await announce({ buildId: r.buildId });
    return r;
  } catch (err) {
    Object.assign(progress, { status: 'failed', message: 'Construirea arhivei a eșuat.', error: failureMessage(err) });
    await announce({ error: failureMessage(err) });
    throw err;
  }
}
