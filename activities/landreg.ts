/**
 * Activities of the parcel sync (docs/sync.md). Thin: each is one call into domain/landreg.
 * The portal-bound ones run on the rate-limited `landreg` task queue; the store-only ones on
 * `store`. Portal failures become Temporal failures whose type names the cause, and the ones a
 * retry cannot fix (bad credentials, malformed answers) are non-retryable.
 */
import { withTemporalFailures } from './failures';
import { keepAlive } from './heartbeat';
import { Context } from '@temporalio/activity';
import { config } from '../domain/config';
import type { Db } from '../domain/db/pool';
import { LandregClient } from '../domain/landreg/client';
import { recordPortalHealth } from '../domain/landreg/sessionStore';
import { refreshUatCatalogue, type CatalogueRefreshResult } from '../domain/landreg/catalogue';
import { refreshUnchangedUats, type CountyRefreshInput } from '../domain/landreg/sync/county';
import { downloadPages, planLayerSync, probeEnrichedParcels, type LayerSyncInput, type LayerSyncPlan } from '../domain/landreg/sync/engine';
import { applyRemovals, closeSyncRun, openSyncRun, type GisSyncRun, type SyncTrigger } from '../domain/landreg/sync/store';
import { enrichmentShare, jobUats, notifyUser, storeCounties, type JobUat, type JobUatSelection } from '../domain/landreg/jobs';
import type { StartDelivery } from '../domain/areaDeps';

export interface LandregActivityDeps {
  db: Db;
  /** Starts the e-mails of the follow notifications a county refresh raises (temporal/mail.ts `mailDelivery`). */
  deliverMail: StartDelivery;
  /** Portal base URL; default config.landreg.baseUrl (tests point it at their own simulator). */
  landregBaseUrl?: string;
}

/** Portal calls: registered on the rate-limited `landreg` queue only, so each one is paced. */
export function createLandregPortalActivities(deps: LandregActivityDeps) {
  const { db } = deps;
  const client = new LandregClient({ db, baseUrl: deps.landregBaseUrl });
  return {
    async planLayerSync(input: LayerSyncInput): Promise<LayerSyncPlan> {
      return keepAlive(() => withTemporalFailures(() => planLayerSync(client, db, input)));
    },

    /**
     * A county refresh's UATs the portal shows unchanged, found with a few queries for the whole
     * county and their runs recorded (domain/landreg/sync/county.ts); the rest need their own sync.
     */
    async refreshUnchangedUats(input: CountyRefreshInput): Promise<{ unchanged: number[] }> {
      return keepAlive(() => withTemporalFailures(() => refreshUnchangedUats(client, db, deps.deliverMail, input)));
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
            downloadPages(client, db, { runId: a.runId, siruta: a.siruta, layerId: a.layerId, fromPage: page, toPage: a.toPage }, (written, r) => {
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
      return keepAlive(() => withTemporalFailures(() => probeEnrichedParcels(client, db, a)));
    },

    /** Spec 3.1 health ping: records availability, maintenance and consecutive failures. */
    async checkPortalHealth(): Promise<{ available: boolean; maintenance: boolean; consecutiveFailures: number }> {
      const h = await client.ping();
      const { consecutiveFailures } = await recordPortalHealth(db, h);
      return { available: h.available, maintenance: h.maintenance, consecutiveFailures };
    },

    async refreshUatCatalogue(opts: { force?: boolean } = {}): Promise<CatalogueRefreshResult> {
      return keepAlive(() => withTemporalFailures(() => refreshUatCatalogue(client, db, opts)));
    },
  };
}

/**
 * Sync bookkeeping in the store: no portal client here, so nothing on the store queue can call it.
 * Each heartbeats while it runs (keepAlive), so a worker killed in the middle of one costs its
 * job the workflow's short heartbeat timeout, not the 5-minute start-to-close timeout.
 */
export function createLandregStoreActivities({ db, deliverMail }: { db: Db; deliverMail: StartDelivery }) {
  return {
    /**
     * The GisSyncRun record of this workflow's sync of one layer (reused on retry), with how the
     * downloads are spread (config.landreg: workflows cannot read configuration).
     */
    async openLayerSyncRun(a: { siruta: number; layerId: string; trigger: SyncTrigger; workflowId: string }): Promise<{ runId: string; pagesPerActivity: number; parallelDownloads: number }> {
      const runId = await keepAlive(() => openSyncRun(db, a));
      return { runId, pagesPerActivity: config.landreg.syncPagesPerActivity, parallelDownloads: config.landreg.syncParallelDownloads };
    },

    async applySyncRemovals(a: { runId: string; siruta: number; layerId: string }): Promise<number> {
      return keepAlive(() => applyRemovals(db, a));
    },

    /** Closes the run (domain: watermark and tile versions of a done run). */
    async closeLayerSync(a: { runId: string; siruta: number; layerId: string; status: 'done' | 'failed'; error?: string }): Promise<GisSyncRun> {
      return keepAlive(() => closeSyncRun(db, deliverMail, a));
    },

    async listJobUats(sel: JobUatSelection): Promise<JobUat[]> {
      return keepAlive(() => jobUats(db, sel));
    },

    async listCountyNames(): Promise<string[]> {
      return keepAlive(() => storeCounties(db));
    },

    async uatEnrichmentShare(siruta: number): Promise<number> {
      return keepAlive(() => enrichmentShare(db, siruta));
    },

    async notifyUser(n: { userId: string; type: 'county-sync-done'; title: string; body: string; link?: string }): Promise<void> {
      await keepAlive(() => notifyUser(db, deliverMail, n));
    },
  };
}

export type LandregPortalActivities = ReturnType<typeof createLandregPortalActivities>;
export type LandregStoreActivities = ReturnType<typeof createLandregStoreActivities>;
