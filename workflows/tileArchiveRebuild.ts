/**
 * Rebuild of the PMTiles overview (spec 3.6, section 8 "tile rebuild wait"): one job under the
 * singleton id `tile-archive-rebuild:overview` whoever asks (the monitor page, the API, the syncs
 * through `startTileArchiveRebuild`). Who builds decides how it is asked and how its end is seen:
 *  - our builder (no TILE_REBUILD_WEBHOOK_URL): the `overviewArchiveBuild` workflow is started as
 *    a child under its own fixed id and its end awaited. One already running (the web start-up's,
 *    or one an outside caller asked for through `POST /tiles/rebuild-webhook`) is the valid
 *    "already running" state: that build signals its end to this singleton.
 *  - an outside tile server (TILE_REBUILD_WEBHOOK_URL set): its webhook is called (409 = already
 *    running) and the archive's stamp polled until it changes, all an outside builder shows.
 * Poll interval and limit are inputs so tests can shorten them; the defaults are the spec's.
 */
import { ApplicationFailure, condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { TileActivities } from '../activities/tiles';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import { startChildJob } from './childJobs';
import { overviewBuiltSignal, type OverviewBuilt, type overviewArchiveBuild } from './overviewArchiveBuild';
import type { ArchiveStamp, RebuildRequest, TileArchiveRebuildInput, TileArchiveRebuildResult, TileRebuildDetail, TileRebuildProgress } from '../domain/tiles/jobTypes';

// One webhook call and S3 HEADs, no heavy work: the store queue.
const tiles = proxyActivities<TileActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.periodic,
});

/** Spec section 8: poll every 15 s, give up after 30 min. */
export const TILE_REBUILD_POLL_MS = 15_000;
export const TILE_REBUILD_LIMIT_MS = 30 * 60_000;

const changed = (before: ArchiveStamp | null, now: ArchiveStamp | null) =>
  now !== null && (before === null || before.lastModified !== now.lastModified || before.etag !== now.etag);

export async function tileArchiveRebuild(input: TileArchiveRebuildInput = {}): Promise<TileArchiveRebuildResult> {
  const pollMs = input.pollIntervalMs ?? TILE_REBUILD_POLL_MS;
  const limitMs = input.timeoutMs ?? TILE_REBUILD_LIMIT_MS;
  const started = Date.now();
  const remaining = () => Math.max(1, limitMs - (Date.now() - started));
  const progress: TileRebuildProgress = {
    status: 'running',
    phase: 'request',
    polls: 0,
    elapsedMs: 0,
    timeoutMs: limitMs,
    percent: 0,
    message: 'Se solicită reconstruirea arhivei…',
  };
  setHandler(progressQuery, (): ProgressState<TileRebuildDetail> => {
    const elapsedMs = Date.now() - started;
    const percent = progress.status === 'running' ? Math.min(99, Math.floor((elapsedMs / limitMs) * 100)) : progress.percent;
    const { status, phase, message, error, ...detail } = progress;
    return { status, phase, message, ...(error !== undefined ? { error } : {}), current: percent, total: 100, detail: { ...detail, elapsedMs, percent } };
  });
  // Set before anything is awaited: a build already running may end while this job starts.
  let built: OverviewBuilt | undefined;
  setHandler(overviewBuiltSignal, (b) => {
    built ??= b;
  });
  const timedOut = (): never => {
    const minutes = Math.round(limitMs / 60_000);
    Object.assign(progress, {
      status: 'failed',
      phase: 'timeout',
      message: `Arhiva nu s-a actualizat în ${minutes} minute; reconstruirea a fost abandonată.`,
    });
    throw ApplicationFailure.nonRetryable(progress.message, 'TileRebuildTimeoutError', { polls: progress.polls, limitMs });
  };

  if ((await tiles.archiveBuilder()) === 'ours') {
    const build = await startOverviewBuild();
    progress.build = build.request;
    progress.phase = 'building';
    progress.message =
      build.request === 'already_running'
        ? 'O reconstruire rulează deja; se așteaptă încheierea ei.'
        : 'Reconstruirea a pornit; se așteaptă încheierea ei.';
    // The child's own end, or (for a build this job did not start) the end the build signals.
    build.result?.then(
      (r) => (built ??= { buildId: r.buildId }),
      (err: unknown) => (built ??= { error: failureMessage(err) }),
    );
    if (!(await condition(() => built !== undefined, remaining()))) timedOut();
    if (built?.error !== undefined) {
      Object.assign(progress, { status: 'failed', phase: 'failed', message: 'Construirea arhivei a eșuat.', error: built.error });
      throw ApplicationFailure.nonRetryable(built.error, 'TileBuildFailedError');
    }
    Object.assign(progress, { status: 'done', phase: 'done', percent: 100, message: 'Arhiva a fost actualizată.' });
    return { builder: 'ours', build: build.request, buildId: built!.buildId!, waitedMs: Date.now() - started };
  }

  const previous = await tiles.archiveStamp();
  const webhook = await tiles.callRebuildWebhook();
  progress.webhook = webhook;
  progress.phase = 'waiting';
  progress.message =
    webhook === 'already_running'
      ? 'O reconstruire rulează deja; se așteaptă actualizarea arhivei.'
      : 'Reconstruirea a pornit; se așteaptă actualizarea arhivei.';

  while (Date.now() - started < limitMs) {
    await sleep(Math.min(pollMs, remaining()));
    progress.polls++;
    const current = await tiles.archiveStamp();
    if (current && changed(previous, current)) {
      Object.assign(progress, { status: 'done', phase: 'done', percent: 100, message: 'Arhiva a fost actualizată.' });
      return { builder: 'webhook', webhook, previous, current, polls: progress.polls, waitedMs: Date.now() - started };
    }
  }
  return timedOut();
}

/**
 * Our build as a child under its fixed id, on the exports queue where the heavy tools run; left
 * running if this job ends first (its limit), as a build asked for over the webhook always was.
 */
async function startOverviewBuild(): Promise<{ request: RebuildRequest; result?: Promise<{ buildId: string }> }> {
  const child = await startChildJob<typeof overviewArchiveBuild>('tile-archive-build', undefined);
  return child ? { request: 'started', result: child.result() } : { request: 'already_running' };
}

/**
 * Asks for a rebuild from a sync workflow: this workflow as a separate job (abandoned by its
 * parent: the sync does not wait up to 30 minutes for it), under the id the API and the monitor
 * use. One already running is fine (spec 3.6).
 */
export async function startTileArchiveRebuild(): Promise<boolean> {
  await startChildJob<typeof tileArchiveRebuild>('tile-archive-rebuild', {}, { executionTimeout: '45 minutes' });
  return true;
}
