/**
 * Activities of the scheduling workflows (docs/scheduling.md), on the store queue: each one call
 * of the scheduling service, plus the one job starter (temporal/jobs.ts `start`, which keeps two
 * syncs of one UAT from running at once). The starter is passed in by workers/registry.ts:
 * activities never import the client side of temporal/, whose job table names the workflows that
 * import these activities' types.
 */
import { AppError } from '../domain/errors';
import { config } from '../domain/config';
import { layersOf, type StepCode } from '../domain/scheduling/rules';
import type { DueUat, SchedulingService } from '../domain/scheduling/service';
import type { NextStep, SessionTally, WeekendStep } from '../domain/scheduling/jobTypes';
import type { AuthService } from '../domain/auth/service';
import type { NotificationsService } from '../domain/notifications/service';
import { keptAlive } from './heartbeat';

/** What the activities need of temporal/jobs.ts: its `listRunningJobs` and the job table's `start`. */
export interface SchedulingJobs {
  listRunningJobs(kinds: readonly string[]): Promise<readonly unknown[]>;
  start(
    kind: 'sync',
    input: { siruta: number; layers: string[]; mode: 'base' | 'magic'; importNoGeometry: boolean; trigger: 'schedule' },
  ): Promise<{ jobId: string }>;
}

export function createSchedulingActivities({
  scheduling,
  jobs,
  services,
  notifications,
}: {
  scheduling: SchedulingService;
  jobs: SchedulingJobs;
  services: { auth: Pick<AuthService, 'recentAdmins'> };
  notifications: Pick<NotificationsService, 'mailReport'>;
}) {
  return keptAlive({
    /** Due UATs in start order, and how many more syncs the portal budget allows now. */
    async planRuleSyncs(input: { now: number }): Promise<{ due: DueUat[]; budget: number }> {
      const [due, running] = await Promise.all([scheduling.dueNow(input.now), jobs.listRunningJobs(['sync', 'sync-background'])]);
      return { due, budget: Math.max(0, config.scheduling.maxParallelSyncs - running.length) };
    },

    /** Starts one UAT's scheduled sync; `already_running` when a sync of that UAT runs. */
    async startRuleSync(input: { siruta: number; steps: StepCode[]; ruleId: string; now: number }): Promise<{ jobId: string | null; status: 'started' | 'already_running' }> {
      try {
        const { jobId } = await jobs.start(
          'sync',
          {
            siruta: input.siruta,
            layers: layersOf(input.steps),
            mode: input.steps.includes('E') ? 'magic' : 'base',
            importNoGeometry: input.steps.includes('N'),
            trigger: 'schedule',
          },
        );
        await scheduling.markRuleRun(input.ruleId, new Date(input.now));
        return { jobId, status: 'started' };
      } catch (err) {
        if (err instanceof AppError && err.code === 'already_running') return { jobId: null, status: 'already_running' };
        throw err;
      }
    },

    async refreshRuleDueTimes(input: { now: number }): Promise<void> {
      await scheduling.refreshNextDue(input.now);
    },

    async weekendNext(input: { prefer?: number | null } = {}): Promise<{ paused: boolean; next: NextStep | null }> {
      const [paused, next] = await Promise.all([scheduling.isPaused(), scheduling.nextStep(input.prefer)]);
      return { paused, next };
    },

    async weekendStartStep(input: { siruta: number; step: WeekendStep; at: number }): Promise<number> {
      return scheduling.startStep(input.siruta, input.step, new Date(input.at));
    },

    async weekendFinishStep(input: { siruta: number; step: WeekendStep; error?: string }): Promise<void> {
      await scheduling.finishStep(input.siruta, input.step, input.error === undefined ? { ok: true } : { ok: false, error: input.error });
    },

    async weekendNewWeekend(): Promise<boolean> {
      return scheduling.startNewWeekend();
    },

    async weekendRecipients(): Promise<string[]> {
      // Who hears about the weekend sync (spec 6): the administrators who signed in lately.
      return services.auth.recentAdmins();
    },

    /**
     * The end-of-session status report (spec 6). Kept in the store and shown on the weekend sync
     * page; e-mail delivery goes through the notifications module's report mail once it exists.
     */
    async weekendSessionReport(input: SessionTally): Promise<{ subject: string }> {
      const { at, ...report } = await scheduling.saveSessionReport(input);
      // Spec 6: the session's status report goes to the administrators by e-mail, once.
      await notifications.mailReport({ to: 'admins', subject: report.subject, text: report.text, idempotencyKey: `weekend-report:${at}` });
      return { subject: report.subject };
    },
  });
}

export type SchedulingActivities = ReturnType<typeof createSchedulingActivities>;
