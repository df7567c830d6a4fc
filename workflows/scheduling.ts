/**
 * Scheduled syncs (issue 21, docs/scheduling.md):
 *  - `syncRuleScheduler`: run by a schedule every 15 minutes; starts the UATs whose rule is due
 *    and whose window is open, priority 1 first, no more than the portal budget allows, each
 *    through the one job starter (never two syncs of a UAT at once); keeps `nextDueAt` true.
 *  - `weekendSync`: the weekend deep sync session (spec 3.4), one at a time under a fixed id. It
 *    takes the next step from the persisted queue, runs it only while the weekend window is open
 *    (forced sessions: 22:00–05:00), sleeps until the next window when it closes, stops while
 *    paused, and continues-as-new before its history grows large. A restart replays it to the
 *    step it was in (the step runs as a child workflow, which goes on by itself meanwhile).
 *  - `weekendSyncKick`: run by the schedule on Friday, Saturday and Sunday at 23:00; starts the
 *    session unless one is running (a new weekend on Friday starts the queue over when it was done).
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  defineSignal,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications';
import type { SchedulingActivities } from '../activities/scheduling';
import { layersOf, sessionWeekendWindow, wallClock, weekendWindow } from '../domain/scheduling/rules';
import { WEEKEND_STEP_LABELS } from '../domain/text/labels';
import { JOBS } from '../temporal/common/jobTable';
import { TaskQueue } from '../temporal/common/queues';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { startTileArchiveRebuild } from './tileArchiveRebuild';
import type { enrichParcels } from './enrichParcels';
import type { importNoGeometry } from './importNoGeometry';
import type { uatSync } from './uatSync';
import { executeChildJob, startChildJob } from './childJobs';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import type { NextStep, SchedulerTickResult, SessionTally, WeekendState, WeekendStep, WeekendSyncArgs, WeekendSyncStatus } from '../domain/scheduling/jobTypes';

const act = proxyActivities<SchedulingActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '2 minutes',
  ...KEPT_ALIVE,
  retry: RETRY.store,
});
const notify = proxyActivities<NotificationActivities>({
  taskQueue: TaskQueue.notifications,
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.notify,
});

// ---- sync rules --------------------------------------------------------------------------------

export async function syncRuleScheduler(): Promise<SchedulerTickResult> {
  const now = Date.now();
  const plan = await act.planRuleSyncs({ now });
  const out: SchedulerTickResult = { started: [], alreadyRunning: [], deferred: [] };
  let budget = plan.budget;
  for (const d of plan.due) {
    if (budget <= 0) {
      // Over the portal budget: the next tick (15 minutes) takes them, still in priority order.
      out.deferred.push(d.siruta);
      continue;
    }
    const r = await act.startRuleSync({ siruta: d.siruta, steps: d.steps, ruleId: d.ruleId!, now });
    if (r.status === 'started') {
      out.started.push({ siruta: d.siruta, jobId: r.jobId! });
      budget--;
    } else out.alreadyRunning.push(d.siruta);
  }
  await act.refreshRuleDueTimes({ now: Date.now() });
  return out;
}

// ---- weekend deep sync --------------------------------------------------------------------------

const WEEKEND_MESSAGES: Record<WeekendSyncStatus, string> = {
  idle: 'Sesiunea de weekend s-a încheiat.',
  running: 'Sincronizarea de weekend rulează.',
  waiting_window: 'Se așteaptă fereastra de weekend.',
  paused: 'Coada de weekend este în pauză.',
};
/**
 * A manual trigger (spec 3.4): forced window from now on, and the next city starts at once; with
 * a SIRUTA (a row's "Pornește"), that city, before the queue's order.
 */
export const weekendTriggerSignal = defineSignal<[{ siruta?: number }?]>(JOBS['weekend-sync'].signal);
/** The queue or the pause switch changed: look again. */
export const weekendWakeSignal = defineSignal(JOBS['weekend-sync'].signals.wake);

/** Continue-as-new after this many history events (Temporal warns at 10,240). */
const HISTORY_LIMIT = 2_000;

/**
 * How long one weekend step may take. The portal activities give up after a bounded number of
 * attempts, but a portal that answers slowly (or a child that cannot start) would otherwise hold
 * the queue for the whole weekend: past this limit the step is cancelled (the child closes its
 * run as failed), ends in `error`, is e-mailed, and the queue moves on to the next step. A night's
 * window is 5 hours (forced: 7), so one stuck step costs at most this much of it.
 */
export const WEEKEND_STEP_TIME_LIMIT_MS = 2 * 60 * 60 * 1000;

/** The step's child workflow, cancelled when it outlives WEEKEND_STEP_TIME_LIMIT_MS. */
async function runBoundedStep(next: NextStep): Promise<{ added: number }> {
  const outer = CancellationScope.current();
  try {
    return await new CancellationScope({ cancellable: true, timeout: WEEKEND_STEP_TIME_LIMIT_MS }).run(() => runStep(next, 'weekend'));
  } catch (err) {
    // Our own time limit, not a cancellation of the whole session (that one propagates).
    if (isCancellation(err) && !outer.consideredCancelled) {
      throw ApplicationFailure.nonRetryable(`pasul nu s-a încheiat în ${WEEKEND_STEP_TIME_LIMIT_MS / 3_600_000} ore și a fost oprit`, 'WeekendStepTimeoutError');
    }
    throw err;
  }
}

async function runStep(next: NextStep, trigger: 'weekend'): Promise<{ added: number }> {
  const layers: Partial<Record<WeekendStep, string>> = { sync_terenuri: layersOf(['T'])[0], sync_cladiri: layersOf(['C'])[0] };
  const layer = layers[next.step];
  if (layer) {
    const child = await executeChildJob<typeof uatSync>('sync', { siruta: next.siruta, layers: [layer], mode: 'base', trigger, requestTileRebuild: false });
    // The UAT's lock (job table): the step fails like any other and is retried on a later night.
    if (child.heldBy !== null) throw ApplicationFailure.nonRetryable(`o altă sincronizare a UAT-ului rulează (${child.heldBy})`, 'UatLockedError');
    return { added: child.result.added };
  }
  if (next.step === 'import_nogeom') {
    await executeChildJob<typeof importNoGeometry, 'import-nogeom'>('import-nogeom', { siruta: next.siruta });
    return { added: 0 };
  }
  await executeChildJob<typeof enrichParcels, 'enrich'>('enrich', { siruta: next.siruta });
  return { added: 0 };
}

export async function weekendSync(args: WeekendSyncArgs = {}): Promise<SessionTally> {
  let forced = args.forced ?? false;
  let runNow = args.runNow ?? false;
  let wake = false;
  let runNowCity: number | null = null;
  const state: WeekendState = { syncStatus: 'running', currentActivity: null, forced, nextWindowStart: null };
  const tally: SessionTally = args.tally ?? { startedAt: Date.now(), endedAt: 0, stepsRun: 0, stepsFailed: 0, featuresAdded: 0, tileRebuildRequested: false };
  // The session's view is the detail of the one progress record; the queue decides how many steps remain.
  setHandler(progressQuery, (): ProgressState<WeekendState> => ({
    status: 'running',
    phase: state.syncStatus,
    current: tally.stepsRun,
    total: 0,
    message: state.currentActivity ?? WEEKEND_MESSAGES[state.syncStatus],
    detail: { ...state, forced },
  }));
  let prefer: number | null = args.runNowSiruta ?? null;
  setHandler(weekendTriggerSignal, (input) => {
    forced = true;
    runNow = true;
    prefer = input?.siruta ?? null;
    runNowCity = null;
    wake = true;
  });
  setHandler(weekendWakeSignal, () => {
    wake = true;
  });

  if (args.newWeekend) await act.weekendNewWeekend();

  for (;;) {
    if (workflowInfo().historyLength > HISTORY_LIMIT) {
      await continueAsNew<typeof weekendSync>({ forced, runNow, ...(prefer !== null ? { runNowSiruta: prefer } : {}), tally, requestTileRebuild: args.requestTileRebuild });
    }
    const { paused, next } = await act.weekendNext({ prefer });
    if (paused) {
      state.syncStatus = 'paused';
      state.currentActivity = null;
      wake = false;
      await condition(() => wake);
      continue;
    }
    if (!next) break;
    // A trigger lets the city it found first run at once; after that city the window rules.
    if (runNow && runNowCity === null) runNowCity = next.siruta;
    if (runNowCity !== null && next.siruta !== runNowCity) {
      runNow = false;
      runNowCity = null;
      prefer = null;
    }
    // A forced run lasts the night it was started in: waiting for another night, the session
    // keeps the ordinary window (issue 30: the shown window moved to 22:00 after a trigger). The
    // same rule tells the queue page what to show (sessionWeekendWindow).
    if (forced && !runNow && !weekendWindow(Date.now(), true).open) forced = false;
    const window = sessionWeekendWindow(Date.now(), forced);
    if (!window.open && !runNow) {
      state.syncStatus = 'waiting_window';
      state.currentActivity = null;
      state.nextWindowStart = window.nextStart;
      wake = false;
      // The window opens (timer) or someone changes the queue, pauses or triggers (signal).
      await condition(() => wake, Math.max(1000, (window.nextStart ?? Date.now() + 3_600_000) - Date.now()));
      continue;
    }
    state.syncStatus = 'running';
    state.nextWindowStart = null;
    state.currentActivity = `${next.name}: ${WEEKEND_STEP_LABELS[next.step]}`;
    const attempt = await act.weekendStartStep({ siruta: next.siruta, step: next.step, at: Date.now() });
    tally.stepsRun++;
    try {
      const r = await runBoundedStep(next);
      tally.featuresAdded += r.added;
      await act.weekendFinishStep({ siruta: next.siruta, step: next.step });
    } catch (err) {
      if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
      const error = failureMessage(err);
      tally.stepsFailed++;
      await act.weekendFinishStep({ siruta: next.siruta, step: next.step, error });
      // Spec 6: one message per failed step, to every administrator; a replay never repeats it.
      for (const userId of await act.weekendRecipients()) {
        await notify.notify({
          userId,
          type: 'weekend-sync-failed',
          title: `Sincronizarea de weekend a eșuat: ${next.name}`,
          body: `Pasul ${next.step} pentru ${next.name} (${next.siruta}) a eșuat (încercarea ${attempt}): ${error}`.slice(0, 2000),
          link: '/parcel-sync/weekend',
          // Spec 6: an immediate e-mail per failed step, whatever the digest preference.
          critical: true,
          idempotencyKey: `weekend-sync-failed:${next.siruta}:${next.step}:${attempt}:${userId}`,
        });
      }
    }
  }

  state.syncStatus = 'idle';
  state.currentActivity = null;
  tally.endedAt = Date.now();
  if (tally.stepsRun > 0) {
    // Spec 4.4 "Sync behaviours" 5 and spec 6: features added → one tile archive rebuild.
    if (tally.featuresAdded > 0 && args.requestTileRebuild !== false) tally.tileRebuildRequested = await startTileArchiveRebuild();
    await act.weekendSessionReport(tally);
  }
  return tally;
}

export async function weekendSyncKick(): Promise<'started' | 'already_running'> {
  // Friday night opens a new weekend: the queue starts over if the last one finished it.
  const newWeekend = wallClock(Date.now()).weekday === 5;
  return (await startChildJob<typeof weekendSync>('weekend-sync', { newWeekend })) ? 'started' : 'already_running';
}
