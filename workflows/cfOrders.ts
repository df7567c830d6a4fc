/**
 * CF extract ordering (spec 3.2, docs/cf.md). The certificate portal has ONE cart per account, so
 * batches of one account never overlap:
 *   cfOrderQueue   one per portal account (fixed id `cf-order-queue:<account>`, started or fed by
 *                  signalWithStart), strictly first in first out, runs ONE cfOrderBatch child at a
 *                  time and continues as new before its history grows large; it ends when idle.
 *   cfOrderBatch   credits + foreign-cart check, add to cart and save metadata per parcel, the
 *                  submit intent recorded (one activity, cfFillCart), ONE submit (reconciled
 *                  against the portal's orders on any retry), poll until done, match documents back
 *                  to parcels, download and store each PDF (cfFetchDocuments), notify each orderer
 *                  once for the batch (`cf-extract-ready`). Each step updates the records. Few, larger activities:
 *                  each activity round trip through Temporal costs more than a store write.
 * Deterministic: no I/O here.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { CfportalActivities } from '../activities/cfportal';
import type { NotificationActivities } from '../activities/notifications';
import { JOBS } from '../temporal/common/jobTable';
import { TaskQueue } from '../temporal/common/queues';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import { batchReadyNotices } from '../domain/cfportal/rules';
import { executeChildJob } from './childJobs';
import type { CfOrderBatchInput, CfOrderBatchResult, CfOrderQueueInput } from '../domain/cfportal/jobTypes';

const cfStep = {
  taskQueue: TaskQueue.cfOrders,
  // One portal call takes at most CFPORTAL_REQUEST_TIMEOUT_MS (30 s); activities heartbeat every
  // 5 s (activities/heartbeat.ts), so a killed worker's step is retried within 15 s.
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
} as const;
const steps = proxyActivities<CfportalActivities>({ ...cfStep, retry: RETRY.cfportalStep });
// Filling the cart is two portal calls a parcel, up to 100 parcels: longer than cfStep's two
// minutes on a slow portal. Its heartbeat already tells a dead worker; a start-to-close timeout
// cut short would start a second attempt while the first still adds parcels (each then in the
// cart twice, and paid twice by the one submit).
const fill = proxyActivities<CfportalActivities>({ ...cfStep, startToCloseTimeout: '2 hours', retry: RETRY.cfportalStep });
// Every attempt of the submit reconciles with the portal's order list before submitting
// (domain/cfportal/pipeline.ts submitBatch), so a retry never pays twice.
const submit = proxyActivities<CfportalActivities>({ ...cfStep, retry: RETRY.cfportalSubmit });
const notify = proxyActivities<NotificationActivities>({
  taskQueue: TaskQueue.notifications,
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.notify,
});

/** A submitted order still processing after this long is given up (the records say so). */
const MAX_PROCESSING_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LISTING_WAIT_MS = 10 * 60 * 1000;
/** Longest pause between two looks for an unlisted submit. */
const MAX_LISTING_PAUSE_MS = 5 * 60 * 1000;

/**
 * The submit, and when the portal took it without listing it yet, the wait for its listing:
 * never a second submit. Past `listingWaitMs` the batch is marked for reconciliation and the
 * admins are told (one report mail through the notifications module); the wait goes on, more
 * slowly, up to a day, and an order listed meanwhile is adopted.
 */
async function submitOnce(input: CfOrderBatchInput): Promise<{ portalOrderId: string; reconciled: boolean }> {
  const { orderId } = input;
  const since = Date.now();
  let flagged = false;
  let pause = input.pollIntervalMs;
  for (;;) {
    const out = await submit.cfSubmitBatch(orderId);
    if (out.state === 'submitted') return out;
    const waited = Date.now() - since;
    if (!flagged && waited >= (input.listingWaitMs ?? DEFAULT_LISTING_WAIT_MS)) {
      const b = await steps.cfMarkReconcile(orderId);
      await notify.mailReport({
        to: 'admins',
        subject: `Comandă de extrase CF de reconciliat (${orderId})`,
        text: [
          `Portalul de extrase a primit comanda ${orderId} (contul ${b.account ?? '?'}, trimisă la ${b.sentAt ?? '?'}), dar nu o listează după ${Math.round(waited / 1000)} s.`,
          'Comanda NU se trimite din nou. Verificați în portal dacă a fost plătită; sistemul o preia singur dacă apare în listă în următoarele 24 de ore.',
          `Parcele: ${b.parcels.join(', ')}`,
        ].join('\n'),
        idempotencyKey: `cf-reconcile:${orderId}`,
      });
      flagged = true;
    }
    if (waited > MAX_PROCESSING_MS) {
      throw ApplicationFailure.nonRetryable('Portalul nu a listat comanda trimisă în 24 de ore; reconciliați manual (nu a fost retrimisă).', 'CfSubmitUnlistedError');
    }
    await sleep(pause);
    if (flagged) pause = Math.min(pause * 2, MAX_LISTING_PAUSE_MS);
  }
}

export async function cfOrderBatch(input: CfOrderBatchInput): Promise<CfOrderBatchResult> {
  const { orderId } = input;
  try {
    const plan = await fill.cfFillCart(orderId);
    if (plan.extractIds.length === 0) return { orderId, portalOrderId: plan.portalOrderId, completed: 0, reconciledSubmit: false };
    const submitted = await submitOnce(input);
    const since = Date.now();
    // The activity polls for up to a minute itself; longer portal work waits on a durable timer.
    while ((await steps.cfAwaitOrder(orderId, submitted.portalOrderId, input.pollIntervalMs)) !== 'done') {
      if (Date.now() - since > MAX_PROCESSING_MS) {
        throw ApplicationFailure.nonRetryable('Portalul nu a emis documentele în 24 de ore.', 'CfProcessingTimeoutError');
      }
      await sleep(input.pollIntervalMs);
    }
    // Workflow time: the 30-day validity follows Temporal's clock (and its time skipping in tests).
    const stored = await steps.cfFetchDocuments(orderId, submitted.portalOrderId, Date.now());
    // One notice per orderer for the whole batch, not one per extract.
    await Promise.all(batchReadyNotices(orderId, stored).map((n) => notify.notify(n)));
    await steps.cfFinishBatch(orderId);
    return { orderId, portalOrderId: submitted.portalOrderId, completed: stored.length, reconciledSubmit: submitted.reconciled };
  } catch (err) {
    // Recorded even when the batch is being cancelled (its queue closed under it): unsettled when
    // its submit was sent, simply failed otherwise.
    await CancellationScope.nonCancellable(async () => {
      const failed = await steps.cfFailBatch(orderId, failureMessage(err));
      // Failed after its submit: possibly paid. Its parcels wait for an administrator (409
      // order_unsettled to everyone else), who is told once. (`?.`: a batch failed before this
      // change replays the step's old, empty answer.)
      if ((failed?.unsettled ?? 0) === 0) return;
      await notify.mailReport({
        to: 'admins',
        subject: `Comandă de extrase CF eșuată după trimitere (${orderId})`,
        text: [
          `Comanda ${orderId} a fost trimisă portalului de extrase, apoi a eșuat: ${failureMessage(err)}`,
          'Poate fi deja plătită. Verificați în portal; parcelele ei nu pot fi comandate din nou decât de un administrator, cu „force”.',
          'Lista: GET /api/cfportal/orders?status=reconcile.',
        ].join('\n'),
        idempotencyKey: `cf-unsettled:${orderId}`,
      });
    });
    throw err;
  }
}

export interface CfQueueState {
  account: string;
  current: string | null;
  pending: string[];
  processed: number;
}

export const enqueueBatchSignal = defineSignal<[CfOrderBatchInput]>(JOBS['cf-order-queue'].signal);

/** An idle queue ends; the next order starts it again (signalWithStart). */
const IDLE_BEFORE_EXIT = '10 minutes';
/** Continue as new well before Temporal's history limits (each batch adds a few dozen events). */
const BATCHES_PER_RUN = 100;

export async function cfOrderQueue(input: CfOrderQueueInput): Promise<{ processed: number }> {
  const pending: CfOrderBatchInput[] = [...(input.pending ?? [])];
  let current: string | null = null;
  let processed = input.processed ?? 0;
  let thisRun = 0;
  setHandler(enqueueBatchSignal, (b) => {
    if (b.orderId !== current && !pending.some((p) => p.orderId === b.orderId)) pending.push(b);
  });
  setHandler(
    progressQuery,
    (): ProgressState<CfQueueState> => ({
      status: 'running',
      phase: current ? 'order' : 'idle',
      current: processed,
      total: processed + pending.length + (current ? 1 : 0),
      message: current ? `Se procesează comanda ${current}; ${pending.length} în așteptare.` : 'Coada de comenzi așteaptă.',
      detail: { account: input.account, current, pending: pending.map((p) => p.orderId), processed },
    }),
  );
  for (;;) {
    if (!(await condition(() => pending.length > 0, IDLE_BEFORE_EXIT))) return { processed };
    const next = pending.shift()!;
    current = next.orderId;
    try {
      await executeChildJob<typeof cfOrderBatch, 'cf-order-batch'>('cf-order-batch', next);
    } catch {
      // The batch recorded its own failure on its extracts; the queue goes on with the next one.
    }
    current = null;
    processed++;
    thisRun++;
    if (thisRun >= BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof cfOrderQueue>({ account: input.account, pending, processed });
    }
  }
}
