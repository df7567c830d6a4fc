/**
 * The PMTiles overview build (EXTERNAL-SERVICES.md "Tile archive"): GDAL export, Protomaps
 * conversion and upload, as one heartbeating activity on the exports queue (CPU heavy, its
 * files in a temporary directory of the worker that runs it, so a retry starts over). One at a
 * time by its fixed workflow id (temporal/tileArchive.ts): the rebuild webhook answers 409 while
 * it runs. The `progress` query has the shape of every job (workflows/landregShared.ts).
 */
import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { TileBuildActivities } from '../activities/tiles';
import { TaskQueue } from '../temporal/queues';
import { failureMessage, progressQuery, type ProgressState } from './landregShared';
import { RETRY } from '../temporal/retryPolicies';

const build = proxyActivities<TileBuildActivities>({
  taskQueue: TaskQueue.exports,
  // A national build takes minutes; each of its two tool steps is killed after 25 (domain/tiles/archive.ts).
  startToCloseTimeout: '1 hour',
  // The activity heartbeats every few seconds while a tool runs: a dead worker is noticed in a minute.
  heartbeatTimeout: '1 minute',
  retry: RETRY.build,
});

export interface OverviewArchiveBuildResult {
  buildId: string;
}

export async function overviewArchiveBuild(): Promise<OverviewArchiveBuildResult> {
  const progress: ProgressState = { status: 'running', phase: 'build', current: 0, total: 1, message: 'Se construiește arhiva de ansamblu…' };
  setHandler(progressQuery, () => progress);
  try {
    const r = await build.buildOverviewArchive();
    Object.assign(progress, { status: 'done', phase: 'done', current: 1, message: 'Arhiva de ansamblu a fost construită.' });
    return r;
  } catch (err) {
    Object.assign(progress, { status: 'failed', message: 'Construirea arhivei a eșuat.', error: failureMessage(err) });
    throw err;
  }
}
