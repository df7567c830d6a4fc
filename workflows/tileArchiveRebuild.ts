/**
 * Rebuild of the PMTiles overview (spec 3.6, section 8 "tile rebuild wait"): call the outbound
 * webhook (409 = already running, a valid state), then poll the archive's stamp until it changes.
 * Poll interval and limit are inputs so tests can shorten them; the defaults are the spec's.
 */
import { ApplicationFailure, defineQuery, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { ArchiveStamp, TileActivities, WebhookOutcome } from '../activities/tiles';
import { TaskQueue } from '../temporal/queues';
import { RETRY } from '../temporal/retryPolicies';

// One webhook call and S3 HEADs, no heavy work: the store queue.
const tiles = proxyActivities<TileActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '1 minute',
  retry: RETRY.periodic,
});

/** Spec section 8: poll every 15 s, give up after 30 min. */
export const TILE_REBUILD_POLL_MS = 15_000;
export const TILE_REBUILD_LIMIT_MS = 30 * 60_000;

export interface TileArchiveRebuildInput {
  pollIntervalMs?: number;
  timeoutMs?: number;
}

export interface TileRebuildProgress {
  status: 'running' | 'done' | 'failed';
  phase: 'webhook' | 'waiting' | 'done' | 'timeout';
  webhook?: WebhookOutcome;
  polls: number;
  elapsedMs: number;
  timeoutMs: number;
  /** Share of the wait limit used, 0..100 (the UI's bar while the build runs). */
  percent: number;
  message: string;
}

export interface TileArchiveRebuildResult {
  webhook: WebhookOutcome;
  previous: ArchiveStamp | null;
  current: ArchiveStamp;
  polls: number;
  waitedMs: number;
}

export const tileRebuildProgressQuery = defineQuery<TileRebuildProgress>('progress');

const changed = (before: ArchiveStamp | null, now: ArchiveStamp | null) =>
  now !== null && (before === null || before.lastModified !== now.lastModified || before.etag !== now.etag);

export async function tileArchiveRebuild(input: TileArchiveRebuildInput = {}): Promise<TileArchiveRebuildResult> {
  const pollMs = input.pollIntervalMs ?? TILE_REBUILD_POLL_MS;
  const limitMs = input.timeoutMs ?? TILE_REBUILD_LIMIT_MS;
  const started = Date.now();
  const progress: TileRebuildProgress = {
    status: 'running',
    phase: 'webhook',
    polls: 0,
    elapsedMs: 0,
    timeoutMs: limitMs,
    percent: 0,
    message: 'Se solicită reconstruirea arhivei…',
  };
  setHandler(tileRebuildProgressQuery, () => {
    const elapsedMs = Date.now() - started;
    const percent = progress.status === 'running' ? Math.min(99, Math.floor((elapsedMs / limitMs) * 100)) : progress.percent;
    return { ...progress, elapsedMs, percent };
  });

  const previous = await tiles.archiveStamp();
  const webhook = await tiles.callRebuildWebhook();
  progress.webhook = webhook;
  progress.phase = 'waiting';
  progress.message =
    webhook === 'already_running'
      ? 'O reconstruire rulează deja; se așteaptă actualizarea arhivei.'
      : 'Reconstruirea a pornit; se așteaptă actualizarea arhivei.';

  while (Date.now() - started < limitMs) {
    await sleep(Math.min(pollMs, Math.max(1, limitMs - (Date.now() - started))));
    progress.polls++;
    const current = await tiles.archiveStamp();
    if (current && changed(previous, current)) {
      Object.assign(progress, { status: 'done', phase: 'done', percent: 100, message: 'Arhiva a fost actualizată.' });
      return { webhook, previous, current, polls: progress.polls, waitedMs: Date.now() - started };
    }
  }
  const minutes = Math.round(limitMs / 60_000);
  Object.assign(progress, {
    status: 'failed',
    phase: 'timeout',
    message: `Arhiva nu s-a actualizat în ${minutes} minute; reconstruirea a fost abandonată.`,
  });
  throw ApplicationFailure.nonRetryable(progress.message, 'TileRebuildTimeoutError', { polls: progress.polls, limitMs });
}
