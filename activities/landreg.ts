/**
 * Activities of the parcel sync (docs/sync.md). Thin: each is one call of the landreg service.
 * The portal-bound ones run on the rate-limited `landreg` task queue; the store-only ones on
 * `store`. Portal failures become Temporal failures whose type names the cause, and the ones a
 * retry cannot fix (bad credentials, malformed answers) are non-retryable.
 */
import { withTemporalFailures } from './failures';
import { keepAlive } from './heartbeat';
import { Context } from '@temporalio/activity';
import { config } from '../domain/config';
import type { LandregService } from '../domain/landreg/service';
import type { CatalogueRefreshResult, CountyRefreshInput, GisSyncRun, JobUat, JobUatSelection, LayerSyncInput, LayerSyncPlan, SyncTrigger } from '../domain/landreg/jobTypes';

/** Portal calls: registered on the rate-limited `landreg` queue only, so each one is paced. */
export function createLandregPortalActivities({ landreg }: { landreg: LandregService }) {
  return {
    async planLayerSync(input: LayerSyncInput): Promise<LayerSyncPlan> {
      return keepAlive(() => withTemporalFailures(() => landreg.planLayerSync(input)));
    },

    /**
     * A county refresh's UATs the portal shows unchanged, found with a few queries for the whole
     * county and their runs recorded (domain/landreg/sync/county.ts); the rest need their own sync.
     */
    async refreshUnchangedUats(input: CountyRefreshInput): Promise<{ unchanged: number[] }> {
      return keepAlive(() => withTemporalFailures(() => landreg.refreshUnchangedUats(input)));
    },

    /**
     * Downloads pages [fromPage, toPage) of a run. Heartbeats the next page after each one, so a
     * retry after a crash resumes there (and a page already written is skipped by the store).
     */
    async downloadSyncPages(a: { runId: string; siruta: number; layerId: string; fromPage: number; toPage: number }): Promise<{ pages: number; inserted: number; reenrichMarked: number; changed: number }> {
      const ctx = Context.current();
      const resumeAt = ctx.info.heartbeatDetails as number | undefined;
      let page = typeof resumeAt === 'number' && resumeAt >= a.fromPage && resumeAt <= a.toPage ? resumeAt : a.fromPage;
      let inserted = 0;
      let reenrichMarked = 0;
      let changed = 0;
      let pages = 0;
      return keepAlive(
        async () => {
          await withTemporalFailures(() =>
            landreg.downloadPages({ runId: a.runId, siruta: a.siruta, layerId: a.layerId, fromPage: page, toPage: a.toPage }, (written, r) => {
              inserted += r.inserted;
              reenrichMarked += r.reenrichMarked;
              changed += r.changed;
              pages++;
              page = written + 1;
              ctx.heartbeat(page);
            }),
          );
          return { pages, inserted, reenrichMarked, changed };
        },
        () => page,
      );
    },

    async probeEnrichedParcels(a: { runId: string; siruta: number; layerId: string }): Promise<{ probed: number; marked: number }> {
      return keepAlive(() => withTemporalFailures(() => landreg.probeEnrichedParcels(a)));
    },

    /** Spec 3.1 health ping: records availability, maintenance and consecutive failures. */
    async checkPortalHealth(): Promise<{ available: boolean; maintenance: boolean; consecutiveFailures: number }> {
      return keepAlive(() => landreg.checkPortalHealth());
    },

    async refreshUatCatalogue(opts: { force?: boolean } = {}): Promise<CatalogueRefreshResult> {
      return keepAlive(() => withTemporalFailures(() => landreg.refreshUatCatalogue(opts)));
    },
  };
}

/**
 * Sync bookkeeping in the store: no portal client here, so nothing on the store queue can call it.
 * Each heartbeats while it runs (keepAlive), so a worker killed in the middle of one costs its
 * job the workflow's short heartbeat timeout, not the 5-minute start-to-close timeout.
 */
export function createLandregStoreActivities({ landreg }: { landreg: LandregService }) {
  return {
    /**
     * The GisSyncRun record of this workflow's sync of one layer (reused on retry), with how the
     * downloads are spread (config.landreg: workflows cannot read configuration).
     */
    async openLayerSyncRun(a: { siruta: number; layerId: string; trigger: SyncTrigger; workflowId: string }): Promise<{ runId: string; pagesPerActivity: number; parallelDownloads: number }> {
      const runId = await keepAlive(() => landreg.openSyncRun(a));
      return { runId, pagesPerActivity: config.landreg.syncPagesPerActivity, parallelDownloads: config.landreg.syncParallelDownloads };
    },

    async applySyncRemovals(a: { runId: string; siruta: number; layerId: string }): Promise<number> {
      return keepAlive(() => landreg.applyRemovals(a));
    },

    /** Closes the run (domain: watermark and tile versions of a done run). */
    async closeLayerSync(a: { runId: string; siruta: number; layerId: string; status: 'done' | 'failed'; error?: string }): Promise<GisSyncRun> {
      return keepAlive(() => landreg.closeSyncRun(a));
    },

    async listJobUats(sel: JobUatSelection): Promise<JobUat[]> {
      return keepAlive(() => landreg.jobUats(sel));
    },

    async listCountyNames(): Promise<string[]> {
      return keepAlive(() => landreg.storeCounties());
    },

    async uatEnrichmentShare(siruta: number): Promise<number> {
      return keepAlive(() => landreg.enrichmentShare(siruta));
    },

    async notifyUser(n: { userId: string; type: 'county-sync-done'; title: string; body: string; link?: string }): Promise<void> {
      await keepAlive(() => landreg.notifyUser(n));
    },
  };
}

export type LandregPortalActivities = ReturnType<typeof createLandregPortalActivities>;
export type LandregStoreActivities = ReturnType<typeof createLandregStoreActivities>;
