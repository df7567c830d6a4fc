/**
 * One layer of one UAT brought up to date with the portal (spec 4.4 "Sync behaviours" 1, 2, 5;
 * docs/sync.md): open the run record → plan (count compare, change query, id diff, full or
 * delta) → download the planned pages in parallel chunks → delete what the portal dropped →
 * probe the oldest-enriched parcels → close the run. A failure closes the run as failed.
 */
import { CancellationScope, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import { describeSyncChanges, layerName } from '../domain/landreg/rules';
import type { LandregPortalActivities, LandregStoreActivities } from '../activities/landreg';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import type { LayerSyncArgs, LayerSyncResult } from '../domain/landreg/jobTypes';

/** Portal calls, on the rate-limited landreg queue. */
const landreg = proxyActivities<LandregPortalActivities>({
  taskQueue: TaskQueue.landreg,
  // A download activity handles a few pages of 1000 features; a minute each is generous.
  startToCloseTimeout: '15 minutes',
  // Portal activities heartbeat every 5 s while alive (activities/landreg.ts keepAlive): a
  // killed worker's downloads are retried elsewhere after 20 s, from their page cursor.
  ...KEPT_ALIVE,
  retry: RETRY.portal,
});

/** Sync bookkeeping on the store queue. */
const store = proxyActivities<LandregStoreActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '5 minutes',
  // They heartbeat while alive too: one on a killed worker is retried elsewhere after 20 s.
  ...KEPT_ALIVE,
  retry: RETRY.store,
});

export async function layerSync(args: LayerSyncArgs): Promise<LayerSyncResult> {
  const { siruta, layerId } = args;
  const progress: ProgressState = { status: 'running', phase: 'plan', current: 0, total: 0, message: `Se compară ${layerName(layerId)} cu portalul…` };
  setHandler(progressQuery, () => progress);

  const opened = await store.openLayerSyncRun({ siruta, layerId, trigger: args.trigger ?? 'manual', workflowId: workflowInfo().workflowId });
  const { runId } = opened;
  try {
    const plan = await landreg.planLayerSync({ runId, siruta, layerId, forceFullSync: args.forceFullSync });

    progress.phase = 'download';
    progress.total = plan.pages;
    progress.message =
      plan.pages === 0
        ? 'Nimic nou de descărcat.'
        : `Sincronizare ${plan.mode === 'full' ? 'completă' : 'incrementală'}: ${plan.toFetch} obiecte în ${plan.pages} pagini.`;
    const chunks: Array<{ fromPage: number; toPage: number }> = [];
    for (let p = 0; p < plan.pages; p += opened.pagesPerActivity) chunks.push({ fromPage: p, toPage: Math.min(plan.pages, p + opened.pagesPerActivity) });
    // Bounded parallelism; the landreg queue's rate limit keeps the portal's pace across all jobs.
    await Promise.all(
      Array.from({ length: Math.min(opened.parallelDownloads, chunks.length) }, async () => {
        for (let c = chunks.shift(); c; c = chunks.shift()) {
          await landreg.downloadSyncPages({ runId, siruta, layerId, ...c });
          progress.current += c.toPage - c.fromPage;
        }
      }),
    );

    if (plan.toRemove > 0) {
      progress.phase = 'remove';
      progress.message = `Se șterg ${plan.toRemove} obiecte eliminate din portal.`;
      await store.applySyncRemovals({ runId, siruta, layerId });
    }

    // A plan from before `probe` existed (a history replayed after the upgrade) had its probe.
    if (plan.mode === 'delta' && plan.probe !== false) {
      progress.phase = 'probe';
      progress.message = 'Se verifică documentațiile parcelelor îmbogățite cel mai demult.';
      await landreg.probeEnrichedParcels({ runId, siruta, layerId });
    }

    const run = await store.closeLayerSync({ runId, siruta, layerId, status: 'done' });
    progress.phase = args.isSubStep ? 'synced' : 'done';
    progress.status = args.isSubStep ? 'running' : 'done';
    progress.current = progress.total;
    progress.message = `Gata: ${describeSyncChanges([run])}; ${run.reenrichMarked} marcate pentru reîmbogățire.`;
    return { ...run, pages: plan.pages };
  } catch (err) {
    progress.status = 'failed';
    progress.phase = 'failed';
    progress.error = failureMessage(err);
    progress.message = 'Sincronizarea a eșuat.';
    // Record the failure even when the workflow is being cancelled.
    await CancellationScope.nonCancellable(() =>
      store.closeLayerSync({ runId, siruta, layerId, status: 'failed', error: failureMessage(err).slice(0, 1000) }),
    );
    throw err;
  }
}
