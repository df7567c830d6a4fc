/**
 * `enrichParcels`: the E step of a sync rule, the magic mode of every sync path and refresh-all
 * (spec 4.4 "Sync behaviours" 3). Walks the UAT's enrichment queue once: parcels marked for
 * re-enrichment, then never-enriched ones, then those enriched over 7 days ago (fresher ones are
 * skipped, spec 8). Batches go to the rate-limited landreg queue one after another; each batch
 * keeps a few parcels in flight (domain/enrichment/service.ts). With nothing to enrich no portal
 * call is made. Progress is the `progress` query; long runs continue-as-new with their cursor.
 */
import { continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import type { EnrichmentPortalActivities, EnrichmentStoreActivities } from '../activities/enrichment';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import type { EnrichParcelsInput, EnrichParcelsResult, EnrichTotals } from '../domain/enrichment/jobTypes';

const store = proxyActivities<EnrichmentStoreActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '2 minutes',
  ...KEPT_ALIVE,
  retry: RETRY.store,
});
const landreg = proxyActivities<EnrichmentPortalActivities>({
  taskQueue: TaskQueue.landreg,
  // 50 parcels × 2 calls at the portal's pace; the heartbeat catches a stuck one far sooner.
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '2 minutes',
  retry: RETRY.portalLong,
});

export const ENRICH_BATCH_SIZE = 50;
/** Batches per workflow run before continue-as-new (keeps the history far below its limits). */
export const ENRICH_BATCHES_PER_RUN = 200;

export interface EnrichProgress extends EnrichTotals {
  siruta: number;
  status: 'running' | 'done';
  phase: 'counting' | 'enriching' | 'done';
  total: number;
  percent: number;
  message: string;
}

/** What the enrichment shows beyond the common progress record (`current` is the parcels done). */
export type EnrichDetail = Omit<EnrichProgress, 'status' | 'phase' | 'message' | 'done' | 'total'>;

export async function enrichParcels(input: EnrichParcelsInput): Promise<EnrichParcelsResult> {
  const size = input.batchSize ?? ENRICH_BATCH_SIZE;
  const totals: EnrichTotals = input.resume?.totals ?? { done: 0, enriched: 0, notFound: 0, portalCalls: 0, batches: 0 };
  const progress: EnrichProgress = {
    siruta: input.siruta,
    status: 'running',
    phase: input.resume ? 'enriching' : 'counting',
    total: input.resume?.total ?? 0,
    percent: 0,
    message: 'Se numără parcelele de îmbogățit…',
    ...totals,
  };
  setHandler(progressQuery, (): ProgressState<EnrichDetail> => {
    const { status, phase, message, done, total, ...detail } = progress;
    return { status, phase, message, current: done, total, detail };
  });
  const update = (phase: EnrichProgress['phase'], message: string) => {
    Object.assign(progress, totals, { phase, message });
    progress.percent = progress.total > 0 ? Math.min(100, Math.round((totals.done / progress.total) * 100)) : 100;
  };

  if (!input.resume) progress.total = await store.countParcelsToEnrich({ siruta: input.siruta, force: input.force });
  let cursor = input.resume?.cursor ?? null;
  update('enriching', `Îmbogățire: ${totals.done} din ${progress.total} parcele`);

  for (let batches = 0; progress.total > 0; batches++) {
    if (batches >= ENRICH_BATCHES_PER_RUN) {
      await continueAsNew<typeof enrichParcels>({ ...input, resume: { cursor, totals, total: progress.total } });
    }
    const parcels = await store.nextParcelsToEnrich({ siruta: input.siruta, after: cursor, size, force: input.force });
    if (parcels.length === 0) break;
    const r = await landreg.enrichParcelBatch({ siruta: input.siruta, parcels });
    const last = parcels[parcels.length - 1];
    cursor = { klass: last.klass, id: last.id };
    totals.done += parcels.length;
    totals.enriched += r.enriched;
    totals.notFound += r.notFound;
    totals.portalCalls += r.portalCalls;
    totals.batches++;
    // Parcels marked meanwhile can push the count past the first estimate.
    progress.total = Math.max(progress.total, totals.done);
    update('enriching', `Îmbogățire: ${totals.done} din ${progress.total} parcele`);
  }

  progress.status = 'done';
  update('done', progress.total === 0 ? 'Nicio parcelă de îmbogățit.' : `Îmbogățite ${totals.enriched} parcele din ${totals.done}.`);
  return { siruta: input.siruta, total: progress.total, ...totals };
}
