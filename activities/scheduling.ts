/**
 * Activities of the scheduling workflows (docs/scheduling.md), on the store queue: each one call
 * into domain/scheduling, plus the one job starter (temporal/jobs.ts `start`, which keeps two
 * syncs of one UAT from running at once). The starter is passed in by workers/registry.ts:
 * activities never import the client side of temporal/, whose job table names the workflows that
 * import these activities' types.
 */
import { AppError } from '../domain/errors';
import type { Db } from '../domain/db/pool';
import type { PrismaClient } from '../domain/db/prisma';
import { config } from '../domain/config';
import { layersOf, type StepCode } from '../domain/scheduling/rules';
import { dueNow, markRuleRun, refreshNextDue, type DueUat } from '../domain/scheduling/syncRules';
import { weekendReport, type SessionTally } from '../domain/scheduling/report';
import {
  finishStep,
  isPaused,
  listQueue,
  nextStep,
  saveLastReport,
  startNewWeekend,
  startStep,
  type NextStep,
  type WeekendStep,
} from '../domain/scheduling/weekend';
import { recentAdmins } from '../domain/auth/admins';
import type { NotificationsService } from '../domain/notifications/service';

/** What the activities need of temporal/jobs.ts: its `listRunningJobs` and the job table's `start`. */
export interface SchedulingJobs {
  listRunningJobs(kinds: readonly string[]): Promise<readonly unknown[]>;
  start(
    kind: 'sync',
    input: { siruta: number; layers: string[]; mode: 'base' | 'magic'; importNoGeometry: boolean; trigger: 'schedule' },
  ): Promise<{ jobId: string }>;
}

export function createSchedulingActivities({ db, prisma, jobs, notifications }: { db: Db; prisma: PrismaClient; jobs: SchedulingJobs; notifications: Pick<NotificationsService, 'mailReport'> }) {
  return {
    /** Due UATs in start order, and how many more syncs the portal budget allows now. */
    async planRuleSyncs(input: { now: number }): Promise<{ due: DueUat[]; budget: number }> {
      const [due, running] = await Promise.all([dueNow(prisma, db, input.now), jobs.listRunningJobs(['sync', 'sync-background'])]);
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
        await markRuleRun(prisma, input.ruleId, new Date(input.now));
        return { jobId, status: 'started' };
      } catch (err) {
        if (err instanceof AppError && err.code === 'already_running') return { jobId: null, status: 'already_running' };
        throw err;
      }
    },

    async refreshRuleDueTimes(input: { now: number }): Promise<void> {
      await refreshNextDue(prisma, db, input.now);
    },

    async weekendNext(input: { prefer?: number | null } = {}): Promise<{ paused: boolean; next: NextStep | null }> {
      const [paused, next] = await Promise.all([isPaused(prisma), nextStep(prisma, input.prefer)]);
      return { paused, next };
    },

    async weekendStartStep(input: { siruta: number; step: WeekendStep; at: number }): Promise<number> {
      return startStep(prisma, input.siruta, input.step, new Date(input.at));
    },

    async weekendFinishStep(input: { siruta: number; step: WeekendStep; error?: string }): Promise<void> {
      await finishStep(prisma, input.siruta, input.step, input.error === undefined ? { ok: true } : { ok: false, error: input.error });
    },

    async weekendNewWeekend(): Promise<boolean> {
      return startNewWeekend(prisma);
    },

    async weekendRecipients(): Promise<string[]> {
      // Who hears about the weekend sync (spec 6): the administrators who signed in lately.
      return recentAdmins(db);
    },

    /**
     * The end-of-session status report (spec 6). Kept in the store and shown on the weekend sync
     * page; e-mail delivery goes through the notifications module's report mail once it exists.
     */
    async weekendSessionReport(input: SessionTally): Promise<{ subject: string }> {
      const report = weekendReport(await listQueue(prisma), input);
      const at = new Date(input.endedAt).toISOString();
      await saveLastReport(prisma, { at, subject: report.subject, text: report.text });
      // Spec 6: the session's status report goes to the administrators by e-mail, once.
      await notifications.mailReport({ to: 'admins', subject: report.subject, text: report.text, idempotencyKey: `weekend-report:${at}` });
      return { subject: report.subject };
    },
  };
}

export type SchedulingActivities = ReturnType<typeof createSchedulingActivities>;
