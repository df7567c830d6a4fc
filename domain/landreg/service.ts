/**
 * The land registry's door (docs/architecture.md "Areas"): the portal session, the UAT catalogue,
 * the parcel sync's steps and the store's views, on the process's store and one portal client
 * (its address from `outside`). Built once per process by `domain/services.ts` and handed to the
 * landreg and RGI routes, the parcel-sync pages (through the load context) and the sync's
 * activities. Its pure rules are in `rules.ts`, its jobs' types in `jobTypes.ts`.
 *
 * The portal client, its typed failures, its paths and the store's UAT reads are called from deep
 * inside other areas (enrichment's portal, the notifications' watchlist, exports, scheduling, the
 * AI context, central's hits, the kernel's health page), which hold a pool, not the services: they
 * are exported below as stateless functions taking their store explicitly.
 */
import type { AreaDeps } from '../areaDeps';
import type { Caller } from '../concurrency';
import { heavyRead } from '../db/heavyRead';
import { LandregClient } from './client';
import type { PortalCredentials } from './sessionStore';
import { countyDataMissing, featureCounts, findCounty, listCounties, listUats, patchUatCatalogue, refreshUatCatalogue, uatOption } from './catalogue';
import { enrichmentShare, jobUats, storeCounties, type JobUatSelection } from './jobs';
import { countFeatures, fetchAllFeatures, uatWhere } from './portal';
import { rgiApplications, rgiDetails, rgiDownload, rgiIssuedDocs } from './rgi';
import { portalStartRecords } from './portalJobStarts';
import { sessionState } from './sessionState';
import { readPortalSession, recordPortalHealth, type HealthRecord } from './sessionStore';
import { dbSummary, lastSyncChanges, layersSummary, listFeatures, localFeatureState, storeStats, storeUatsPage, syncStatus } from './summary';
import { refreshUnchangedUats, type CountyRefreshInput } from './sync/county';
import { downloadPages, planLayerSync, probeEnrichedParcels, type LayerSyncInput } from './sync/engine';
import { applyRemovals, closeSyncRun, openSyncRun, type SyncTrigger } from './sync/store';
import type { PageWriteResult } from './sync/store';

export { LandregClient, type LandregClientOptions } from './client';
export { PortalError, PortalMaintenanceError, PortalRejectedError, looksLikeMaintenance } from './errors';
export { countFeatures, listWorkspaceUats, listWorkspaces, uatDetail, uatWhere } from './portal';
export { lastPortalPing } from './sessionStore';
// What the job starts (temporal/jobs.ts, the client side) record and read of portal jobs just started.
export { portalStartRecords, type PortalJobStart, type PortalStartRecords, type RecordedStart } from './portalJobStarts';
export {
  cadastralRefs,
  countySpelling,
  featureLabel,
  lastSuccessfulSyncs,
  layerCatalogue,
  layerListed,
  recentSyncResults,
  recordFinishedRun,
  syncCandidates,
  uatNamedIn,
  uatParcels,
  uatsBySiruta,
  uatsOfCounty,
} from './reads';
export type { SyncCandidate, SyncResult } from './reads';
export type { UatOption } from './catalogue';
/** The session's answer schema (GET /api/landreg/session), which the page keeps polling into. */
export { SessionState } from './sessionState';
export type { LayerSyncChanges } from './summary';

/** "Sync of a county finished" (spec 6): the notification the county job sends whoever asked. */
interface CountyDoneNotice {
  userId: string;
  type: 'county-sync-done';
  title: string;
  body: string;
  link?: string;
}

export interface LandregDeps extends AreaDeps {
  /**
   * A finished sync tells the followers of the UAT's parcels, a county job whoever asked. Typed
   * here rather than as a Pick of the notifications' service: notifications reads UAT names
   * through this door, and the two doors importing each other would close a loop.
   */
  notifications: {
    notify(n: CountyDoneNotice): Promise<unknown>;
    notifyFeatureChanges(scope: { siruta: number }): Promise<unknown>;
  };
}

const PARCELS = 'TERENURI_ACTIVE';
const BUILDINGS = 'CLADIRI_ACTIVE';
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

export function createLandregService({ store, outside, jobs, notifications }: LandregDeps) {
  const { pool: db, prisma } = store;
  // One client per process: the portal's session and rate schedule live in the store, not in it.
  const client = new LandregClient({ db, baseUrl: outside.landregBaseUrl, requestsPerSecond: outside.landregRequestsPerSecond });
  const notifyFollowers = (scope: { siruta: number }) => notifications.notifyFeatureChanges(scope);
  return {
    /** The shared portal session as the page and `GET /api/landreg/session` show it (the running jobs from Temporal). */
    sessionState: () => sessionState({ db, runningPortalJobs: jobs.runningPortalJobs }),
    /** The jobs that keep the portal session in use (spec 3.1's disconnect rule), from their start on. */
    runningPortalJobs: () => jobs.runningPortalJobs(),
    /** This store's records of portal jobs' starts: a portal job's start takes them (temporal/jobs.ts `start`). */
    portalStarts: portalStartRecords(db),
    /** The stored account (who may replace it is the route's rule). */
    portalSession: () => readPortalSession(db),
    connect: (creds?: Partial<PortalCredentials>) => client.connect(creds),
    disconnect: () => client.disconnect(),
    ping: () => client.ping(),
    recordPortalHealth: (h: HealthRecord) => recordPortalHealth(db, h),
    /** Spec 3.1 health ping (the portal-health job): records availability, maintenance and consecutive failures. */
    async checkPortalHealth() {
      const h = await client.ping();
      const { consecutiveFailures } = await recordPortalHealth(db, h);
      return { available: h.available, maintenance: h.maintenance, consecutiveFailures };
    },

    countyDataMissing: () => countyDataMissing(prisma),
    listUats: () => listUats(db),
    featureCounts: () => featureCounts(db),
    listCounties: () => listCounties(prisma),
    uatOption: (siruta: number) => uatOption(db, siruta),
    findCounty: (name: string) => findCounty(db, name),
    refreshUatCatalogue: (opts: { force?: boolean } = {}) => refreshUatCatalogue(client, db, opts),
    patchUatCatalogue: () => patchUatCatalogue(client, db),
    /** How many features of `layerId` the portal holds for a UAT. */
    portalCount: (layerId: string, siruta: number) => countFeatures(client, layerId, uatWhere(siruta)),

    /** Of one UAT a plain read; of the whole store (every UAT's latest run of every layer) a heavy read. */
    syncStatus: (siruta: number | undefined, caller: Caller) => (siruta === undefined ? heavyRead(db, caller, (conn) => syncStatus(conn)) : syncStatus(db, siruta)),
    storeStats: () => storeStats(db),
    /** A heavy read: a row per UAT and layer of the whole store, each with its UAT's last sync. */
    dbSummary: (caller: Caller) => heavyRead(db, caller, (conn) => dbSummary(conn)),
    /** The sync tab's table: a page of the store's UATs with their parcels and buildings. */
    storeUatsPage: (opts: { q?: string; page?: number }) => storeUatsPage(db, opts, [PARCELS, BUILDINGS]),
    layersSummary: () => layersSummary(db),
    /** A heavy read (domain/db/heavyRead.ts): a deep offset walks the store up to it. */
    listFeatures: (q: Parameters<typeof listFeatures>[1], caller: Caller) => heavyRead(db, caller, (conn) => listFeatures(conn, q)),
    lastSyncChanges: (siruta: number) => lastSyncChanges(db, siruta),
    /** Every portal field of a parcel and its buildings, beside the store's rows of it (unredacted: the caller applies its viewer). */
    async debugFields(siruta: number, cadRef: string) {
      const [parcels, buildings, local] = await Promise.all([
        fetchAllFeatures(client, PARCELS, uatWhere(siruta, `NATIONAL_CADASTRAL_REFERENCE = ${sqlString(cadRef)}`), '*', false),
        fetchAllFeatures(client, BUILDINGS, uatWhere(siruta, `NATIONAL_CADASTRAL_REFERENCE LIKE ${sqlString(`${cadRef}-C%`)}`), '*', false),
        localFeatureState(db, siruta, cadRef),
      ]);
      return { parcels, buildings, local };
    },

    rgiApplications: (q: Parameters<typeof rgiApplications>[1], hidePersonal: boolean) => rgiApplications(client, q, hidePersonal),
    rgiDetails: (applicationId: number, hidePersonal: boolean) => rgiDetails(client, applicationId, hidePersonal),
    rgiIssuedDocs: (applicationId: number, workspaceId: number) => rgiIssuedDocs(client, applicationId, workspaceId),
    rgiDownload: (q: Parameters<typeof rgiDownload>[1]) => rgiDownload(client, q),

    /** The sync's portal steps (the landreg queue's activities, docs/sync.md). */
    planLayerSync: (input: LayerSyncInput) => planLayerSync(client, db, input),
    refreshUnchangedUats: (input: CountyRefreshInput) => refreshUnchangedUats(client, db, notifyFollowers, input),
    downloadPages: (a: Parameters<typeof downloadPages>[2], onWritten: (page: number, result: PageWriteResult) => void) => downloadPages(client, db, a, onWritten),
    probeEnrichedParcels: (a: { runId: string; siruta: number; layerId: string }) => probeEnrichedParcels(client, db, a),

    /** The sync's bookkeeping in the store (the store queue's activities). */
    openSyncRun: (a: { siruta: number; layerId: string; trigger: SyncTrigger; workflowId: string }) => openSyncRun(db, a),
    applyRemovals: (a: { runId: string; siruta: number; layerId: string }) => applyRemovals(db, a),
    closeSyncRun: (a: Parameters<typeof closeSyncRun>[2]) => closeSyncRun(db, notifyFollowers, a),
    jobUats: (sel: JobUatSelection) => jobUats(db, sel),
    storeCounties: () => storeCounties(db),
    enrichmentShare: (siruta: number) => enrichmentShare(db, siruta),
    /** Spec 6: "sync of a county finished" is an in-app notification. */
    notifyUser: async (n: CountyDoneNotice) => void (await notifications.notify(n)),
  };
}

export type LandregService = ReturnType<typeof createLandregService>;
