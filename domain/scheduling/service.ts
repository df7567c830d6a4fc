/**
 * Scheduling's door (docs/architecture.md "Areas"): the sync rules and the weekend queue, on the
 * process's store. Built once per process by `domain/services.ts` and handed to the scheduling
 * routes (api/routes/landregScheduling.ts), the workers' start (the weekend queue's seed) and the
 * scheduling activities. Its pure rules (frequencies, windows, steps) are in `rules.ts`, its jobs'
 * types in `jobTypes.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import type { Frequency } from './rules';
import { weekendReport, type SessionTally } from './report';
import {
  bulkCreateForCounty,
  createRule,
  deleteRule,
  dueNow,
  dueUats,
  getDefaultFrequency,
  getRule,
  listRules,
  markRuleRun,
  refreshNextDue,
  setDefaultFrequency,
  updateRule,
  type RuleInput,
} from './syncRules';
import {
  addCity,
  finishStep,
  isPaused,
  lastReport,
  listQueue,
  nextStep,
  prepareCityTrigger,
  removeCity,
  resetAll,
  resetErrors,
  saveLastReport,
  seedWeekendQueue,
  setPaused,
  startNewWeekend,
  startStep,
} from './weekend';
import type { WeekendStep } from './weekendSteps';

export type { DueUat, SyncRule } from './syncRules';

export function createSchedulingService({ store }: AreaDeps) {
  const { pool: db, prisma } = store;
  return {
    listRules: () => listRules(prisma),
    getRule: (id: string) => getRule(prisma, id),
    createRule: (input: RuleInput) => createRule(prisma, db, input),
    updateRule: (id: string, patch: Parameters<typeof updateRule>[3]) => updateRule(prisma, db, id, patch),
    deleteRule: (id: string) => deleteRule(prisma, id),
    bulkCreateForCounty: (input: Parameters<typeof bulkCreateForCounty>[2]) => bulkCreateForCounty(prisma, db, input),
    getDefaultFrequency: () => getDefaultFrequency(prisma),
    setDefaultFrequency: (frequency: Frequency) => setDefaultFrequency(prisma, frequency),
    /** What is due when: every UAT under a rule, the default's too when `includeDefault`. */
    dueUats: (now: number, opts: { includeDefault: boolean }) => dueUats(prisma, db, now, opts),
    /** The scheduler's tick (the scheduler activities): the UATs due now, a rule's run, the rules' next due times. */
    dueNow: (now: number) => dueNow(prisma, db, now),
    markRuleRun: (ruleId: string, at: Date) => markRuleRun(prisma, ruleId, at),
    refreshNextDue: (now: number) => refreshNextDue(prisma, db, now),

    listQueue: () => listQueue(prisma),
    isPaused: () => isPaused(prisma),
    setPaused: (paused: boolean) => setPaused(prisma, paused),
    lastReport: () => lastReport(prisma),
    addCity: (siruta: number) => addCity(prisma, db, siruta),
    removeCity: (siruta: number) => removeCity(prisma, siruta),
    resetAll: (siruta?: number) => resetAll(prisma, siruta),
    resetErrors: (siruta?: number) => resetErrors(prisma, siruta),
    prepareCityTrigger: (siruta: number) => prepareCityTrigger(prisma, siruta),
    /** The demo's and the workers' start: the configured cities, once per installation. */
    seedWeekendQueue: (sirutas: readonly number[]) => seedWeekendQueue(db, sirutas),
    /** The weekend session's steps (the weekend-sync activities). */
    nextStep: (prefer?: number | null) => nextStep(prisma, prefer),
    startStep: (siruta: number, step: WeekendStep, at: Date) => startStep(prisma, siruta, step, at),
    finishStep: (siruta: number, step: WeekendStep, outcome: Parameters<typeof finishStep>[3]) => finishStep(prisma, siruta, step, outcome),
    startNewWeekend: () => startNewWeekend(prisma),
    /** The end-of-session status report (spec 6), kept for the weekend sync page; the caller mails it. */
    async saveSessionReport(tally: SessionTally) {
      const report = weekendReport(await listQueue(prisma), tally);
      const at = new Date(tally.endedAt).toISOString();
      await saveLastReport(prisma, { at, subject: report.subject, text: report.text });
      return { at, subject: report.subject, text: report.text };
    },
  };
}

export type SchedulingService = ReturnType<typeof createSchedulingService>;
