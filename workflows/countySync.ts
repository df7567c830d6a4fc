/**
 * Jobs over many UATs (spec 4.4): `countySync` (every UAT of a county, a few at a time, then an
 * in-app notification, spec 6), `allCountiesSync` (every county one after another under the
 * singleton id `sync-all-counties:ro`, which blocks county syncs), `refreshAll` (every UAT that
 * holds features, one by one, magic where enrichment is above 30%) and `autoRefresh` (the nightly
 * weekday run, staggered inside 01:00–05:00, least recently synced UATs first).
 */
import { continueAsNew, isCancellation, patched, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { AUTO_REFRESH_MIN_GAP_MS, AUTO_REFRESH_WINDOWS, DEFAULT_STEPS, delayBeforeStart, layersOf, refreshModeFor, staggerPlan, windowState } from '../domain/scheduling/rules';
import { changesByLayer, describeSyncChanges } from '../domain/landreg/rules';
import type { LandregPortalActivities, LandregStoreActivities } from '../activities/landreg';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import { executeChildJob, heldChildJobs } from './childJobs';
import { startTileArchiveRebuild } from './tileArchiveRebuild';
import type { uatSync } from './uatSync';
import type { AllCountiesSyncArgs, AllCountiesSyncResult, AutoRefreshArgs, CountySyncArgs, JobUat, ManyUatsResult, RefreshAllArgs, SyncMode, SyncTrigger, UatOutcome } from '../domain/landreg/jobTypes';

/** The jobs' UAT lists and notifications, on the store queue. */
const store = proxyActivities<LandregStoreActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '5 minutes',
  // They heartbeat while alive too: one on a killed worker is retried elsewhere after 20 s.
  ...KEPT_ALIVE,
  retry: RETRY.store,
});

/** The county's plan asks the portal: on the rate-limited landreg queue. */
const landreg = proxyActivities<LandregPortalActivities>({
  taskQueue: TaskQueue.landreg,
  startToCloseTimeout: '5 minutes',
  ...KEPT_ALIVE,
  retry: RETRY.portal,
});

/** A county job syncs what a UAT sync covers by default: parcels and buildings (steps T, C). */
const JOB_LAYERS = layersOf(DEFAULT_STEPS);

/** UATs of one county synced at once: the portal's rate limit is shared, so more only queues. */
const COUNTY_PARALLEL_UATS = 2;


async function syncOne(uat: JobUat, trigger: SyncTrigger, mode: SyncMode): Promise<UatOutcome> {
  try {
    // The UAT's lock (job table): a sync of it already running is not doubled, only reported.
    const child = await executeChildJob<typeof uatSync>('sync', { siruta: uat.siruta, layers: JOB_LAYERS, mode, trigger, requestTileRebuild: false });
    if (child.heldBy !== null) return { siruta: uat.siruta, name: uat.name, status: 'skipped', runningJobId: child.heldBy, added: 0, removed: 0, changed: 0, layers: [] };
    const r = child.result;
    return { siruta: uat.siruta, name: uat.name, status: 'done', added: r.added, removed: r.removed, changed: r.changed, layers: r.layers };
  } catch (err) {
    // One UAT failing does not stop the county: it is reported and the next one goes on.
    return { siruta: uat.siruta, name: uat.name, status: 'failed', added: 0, removed: 0, changed: 0, layers: [], error: failureMessage(err) };
  }
}

/**
 * Syncs `uats` a few at a time; `settled` are outcomes already known (the county refresh's
 * unchanged UATs), counted in the progress and the result.
 */
async function syncMany(
  uats: JobUat[],
  progress: ProgressState,
  opts: { trigger: SyncTrigger; parallel: number; modeFor?: (u: JobUat) => Promise<SyncMode>; requestTileRebuild: boolean; settled?: UatOutcome[] },
): Promise<ManyUatsResult> {
  return summarize(await syncEach(uats, progress, opts), opts.requestTileRebuild);
}

/** syncMany's outcomes, before the summary; `later`: UATs a later run of the job syncs (counted in the progress). */
async function syncEach(
  uats: JobUat[],
  progress: ProgressState,
  opts: { trigger: SyncTrigger; parallel: number; modeFor?: (u: JobUat) => Promise<SyncMode>; settled?: UatOutcome[]; later?: number },
): Promise<UatOutcome[]> {
  const queue = [...uats];
  const outcomes: UatOutcome[] = [...(opts.settled ?? [])];
  progress.total = uats.length + outcomes.length + (opts.later ?? 0);
  progress.current = outcomes.length;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(opts.parallel, queue.length)) }, async () => {
      for (let u = queue.shift(); u; u = queue.shift()) {
        progress.message = `Se sincronizează ${u.name} (${progress.current + 1}/${progress.total})…`;
        const mode = opts.modeFor ? await opts.modeFor(u) : 'base';
        outcomes.push(await syncOne(u, opts.trigger, mode));
        progress.current++;
      }
    }),
  );
  return outcomes;
}

async function summarize(outcomes: UatOutcome[], requestTileRebuild: boolean): Promise<ManyUatsResult> {
  const added = outcomes.reduce((s, o) => s + o.added, 0);
  const tileRebuildRequested = added > 0 && requestTileRebuild ? await startTileArchiveRebuild() : false;
  const layers = changesByLayer(outcomes.flatMap((o) => o.layers));
  return {
    uats: outcomes,
    done: outcomes.filter((o) => o.status === 'done').length,
    failed: outcomes.filter((o) => o.status === 'failed').length,
    skipped: outcomes.filter((o) => o.status === 'skipped').length,
    added,
    removed: outcomes.reduce((s, o) => s + o.removed, 0),
    changed: outcomes.reduce((s, o) => s + o.changed, 0),
    layers,
    summary: describeSyncChanges(layers),
    tileRebuildRequested,
  };
}

/** "4 UAT-uri sincronizate, 0 cu erori", and the UATs left to the job that was already syncing them. */
function tally(r: ManyUatsResult): string {
  const skipped = r.skipped ? `, ${r.skipped} lăsate sincronizării care rula deja` : '';
  return `${r.done} UAT-uri sincronizate, ${r.failed} cu erori${skipped}`;
}

/**
 * The county's UATs the portal shows unchanged (all JOB_LAYERS), settled without a child
 * workflow each: a UAT another job holds is left out (its child start reports it skipped).
 */
async function unchangedUats(uats: JobUat[], trigger: SyncTrigger): Promise<UatOutcome[]> {
  const held = await heldChildJobs('sync', uats.map((u) => ({ siruta: u.siruta })));
  const free = uats.filter((_, i) => held[i] === null);
  if (free.length === 0) return [];
  let unchanged: number[];
  try {
    ({ unchanged } = await landreg.refreshUnchangedUats({ workflowId: workflowInfo().workflowId, trigger, sirutas: free.map((u) => u.siruta), layers: JOB_LAYERS }));
  } catch (err) {
    if (isCancellation(err)) throw err;
    // A portal that cannot answer for the county (no statistics, one UAT failing): each UAT on its own.
    return [];
  }
  const byId = new Map(free.map((u) => [u.siruta, u]));
  return unchanged.map((siruta) => ({
    siruta,
    name: byId.get(siruta)!.name,
    status: 'done',
    added: 0,
    removed: 0,
    changed: 0,
    layers: JOB_LAYERS.map((layerId) => ({ layerId, added: 0, removed: 0, changed: 0 })),
  }));
}

export async function countySync(args: CountySyncArgs): Promise<ManyUatsResult & { county: string }> {
  const progress: ProgressState = { status: 'running', phase: 'sync', current: 0, total: 0, message: `Județul ${args.county}…` };
  setHandler(progressQuery, () => progress);
  const uats = await store.listJobUats({ kind: 'county', county: args.county });
  // The catalogue's spelling ("Covasna", "Argeș"), whatever case or diacritics the caller used.
  const county = uats[0]?.county ?? args.county;
  progress.message = `Județul ${county}…`;
  const trigger = args.trigger ?? 'county';
  // Versioned: a county sync started before this change replays its per-UAT children.
  const settled = !args.perUatPlan && patched('county-unchanged-uats') ? await unchangedUats(uats, trigger) : [];
  const done = new Set(settled.map((o) => o.siruta));
  const result = await syncMany(
    uats.filter((u) => !done.has(u.siruta)),
    progress,
    { trigger, parallel: COUNTY_PARALLEL_UATS, requestTileRebuild: args.requestTileRebuild !== false, settled },
  );
  if (args.userId) {
    await store.notifyUser({
      userId: args.userId,
      type: 'county-sync-done',
      title: `Sincronizarea județului ${county} s-a încheiat`,
      body: `${tally(result)}. ${result.summary}.`,
      link: '/parcel-sync',
    });
  }
  progress.status = 'done';
  progress.phase = 'done';
  progress.message = `Județul ${county}: ${tally(result)}. ${result.summary}.`;
  return { county, ...result };
}

export async function allCountiesSync(args: AllCountiesSyncArgs = {}): Promise<AllCountiesSyncResult> {
  const progress: ProgressState = { status: 'running', phase: 'sync', current: 0, total: 0, message: 'Toate județele…' };
  setHandler(progressQuery, () => progress);
  const counties = await store.listCountyNames();
  progress.total = counties.length;
  const out: Array<{ county: string; done: number; failed: number; added: number }> = [];
  let added = 0;
  for (const county of counties) {
    progress.message = `Județul ${county} (${progress.current + 1}/${progress.total})…`;
    const child = await executeChildJob<typeof countySync>('sync-county', { county, trigger: 'all_counties', requestTileRebuild: false });
    // A county a user's county job holds is theirs to finish (its UATs are not synced twice).
    if (child.heldBy !== null) {
      out.push({ county, done: 0, failed: 0, added: 0 });
      progress.current++;
      continue;
    }
    const r = child.result;
    out.push({ county, done: r.done, failed: r.failed, added: r.added });
    added += r.added;
    progress.current++;
  }
  if (added > 0 && args.requestTileRebuild !== false) await startTileArchiveRebuild();
  progress.status = 'done';
  progress.phase = 'done';
  progress.message = `Toate cele ${counties.length} județe au fost parcurse.`;
  return { counties: out };
}

async function magicWhenEnriched(u: JobUat): Promise<SyncMode> {
  return refreshModeFor(await store.uatEnrichmentShare(u.siruta));
}

/**
 * UATs one run of refreshAll syncs before it continues as new: about 15 history events a UAT, so
 * a store of every UAT of the country (3,200) would pass Temporal's 51,200-event limit in one run.
 */
export const REFRESH_UATS_PER_RUN = 200;

export async function refreshAll(args: RefreshAllArgs = {}): Promise<ManyUatsResult> {
  const progress: ProgressState = { status: 'running', phase: 'sync', current: 0, total: 0, message: 'Reîmprospătare…' };
  setHandler(progressQuery, () => progress);
  const uats = args.resume?.uats ?? (await store.listJobUats({ kind: 'synced' }));
  const settled = args.resume?.outcomes ?? [];
  const opts = { trigger: 'manual' as const, parallel: 1, modeFor: magicWhenEnriched };
  const perRun = Math.max(1, args.uatsPerRun ?? REFRESH_UATS_PER_RUN);
  // Versioned: a refresh started before this change replays as one run.
  if (uats.length > perRun && patched('refresh-all-continue-as-new')) {
    const outcomes = await syncEach(uats.slice(0, perRun), progress, { ...opts, settled, later: uats.length - perRun });
    return continueAsNew<typeof refreshAll>({ ...args, resume: { uats: uats.slice(perRun), outcomes } });
  }
  const result = await syncMany(uats, progress, { ...opts, settled, requestTileRebuild: args.requestTileRebuild !== false });
  progress.status = 'done';
  progress.phase = 'done';
  progress.message = `${result.done} UAT-uri reîmprospătate, ${result.failed} cu erori.`;
  return result;
}

/** Spec 8 "auto-refresh window": weekdays 01:00–05:00, staggered. */
export const AUTO_REFRESH_WINDOW_MS = 4 * 60 * 60_000;

/**
 * Spec 8 "auto-refresh window": the UATs holding features, least recently synced first, spread
 * evenly across the window (domain/scheduling/autoRefresh.ts), one at a time, magic mode where
 * enrichment is above 30%. Inside the weekday window the run ends with it (05:00 Romanian time,
 * whatever time the schedule's catch-up started it); a run started outside it gets `windowMs`.
 */
export async function autoRefresh(args: AutoRefreshArgs = {}): Promise<ManyUatsResult> {
  const progress: ProgressState = { status: 'running', phase: 'sync', current: 0, total: 0, message: 'Reîmprospătare automată…' };
  setHandler(progressQuery, () => progress);
  const start = Date.now();
  const w = windowState(AUTO_REFRESH_WINDOWS, start);
  const end = args.windowMs !== undefined || !w.open ? start + (args.windowMs ?? AUTO_REFRESH_WINDOW_MS) : w.current!.end;
  const gap = args.staggerMs ?? AUTO_REFRESH_MIN_GAP_MS;
  const uats = await store.listJobUats({ kind: 'stalest' });
  const plan = staggerPlan(uats.length, start, end, gap);
  progress.total = plan.starts.length;
  const outcomes: UatOutcome[] = [];
  let previousEnd: number | null = null;
  for (const [i, u] of uats.slice(0, plan.starts.length).entries()) {
    const delay = delayBeforeStart(plan.starts[i], Date.now(), previousEnd, end, gap);
    // The window closed: the rest (the most recently synced) wait for the next night.
    if (delay === null) break;
    if (delay > 0) {
      progress.message = `Următorul UAT (${u.name}) pornește peste ${Math.round(delay / 60_000)} min.`;
      await sleep(delay);
    }
    progress.message = `Se sincronizează ${u.name} (${i + 1}/${progress.total})…`;
    outcomes.push(await syncOne(u, 'auto_refresh', await magicWhenEnriched(u)));
    previousEnd = Date.now();
    progress.current++;
  }
  const result = await summarize(outcomes, args.requestTileRebuild !== false);
  progress.status = 'done';
  progress.phase = 'done';
  progress.message = `${result.done} UAT-uri reîmprospătate în fereastra de noapte.`;
  return result;
}
