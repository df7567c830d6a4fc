/**
 * Sync rules (spec 2.6, CONTRACT.md section 3), the pure part: frequencies, which rule governs a
 * UAT (UAT rule, then county rule, then the global default), when a UAT is due and when it may
 * run (the rule's windows), and the order in which due UATs start (priority 1 first).
 */
import { foldName } from '../text/fold';
import { nextOpenAt, type TimeWindow } from './windows';

export const FREQUENCIES = ['hourly', 'every_6h', 'daily', 'weekly', 'monthly', 'manual'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export const STEP_CODES = ['T', 'C', 'N', 'E'] as const;
export type StepCode = (typeof STEP_CODES)[number];

/** Steps a rule-less UAT gets from the global default: parcels and buildings (the job routes' layers). */
export const DEFAULT_STEPS: StepCode[] = ['T', 'C'];
/** The global default ranks after every explicit rule. */
export const DEFAULT_PRIORITY = 10;

const HOUR = 3_600_000;

/** When a UAT last synced at `last` is due again; null for `manual` (never by itself). */
export function dueAfter(frequency: Frequency, last: number): number | null {
  switch (frequency) {
    case 'hourly':
      return last + HOUR;
    case 'every_6h':
      return last + 6 * HOUR;
    case 'daily':
      return last + 24 * HOUR;
    case 'weekly':
      return last + 7 * 24 * HOUR;
    case 'monthly': {
      // A calendar month (28..31 days), on UTC dates: a clock change moves it by an hour at most.
      const d = new Date(last);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
    }
    case 'manual':
      return null;
  }
}

export interface RuleLike {
  id: string;
  scope: 'uat' | 'county';
  siruta: number | null;
  county: string | null;
  frequency: Frequency;
  priority: number;
  windows: TimeWindow[];
  steps: StepCode[];
  enabled: boolean;
}

export interface ResolvedRule {
  /** Where the rule came from (spec 2.6 resolution order). */
  source: 'uat' | 'county' | 'default';
  ruleId: string | null;
  frequency: Frequency;
  priority: number;
  windows: TimeWindow[];
  steps: StepCode[];
}

/**
 * The rule that governs one UAT: its own rule, else its county's, else the global default. A
 * disabled rule still governs its target (it switches the scheduled sync off; it does not fall
 * through to a broader rule).
 */
export function resolveRule(uat: { siruta: number; county: string | null }, rules: readonly RuleLike[], defaultFrequency: Frequency): ResolvedRule & { enabled: boolean } {
  const own = rules.find((r) => r.scope === 'uat' && r.siruta === uat.siruta);
  const county = uat.county ? rules.find((r) => r.scope === 'county' && r.county !== null && foldName(r.county) === foldName(uat.county!)) : undefined;
  const r = own ?? county;
  if (r) return { source: r.scope, ruleId: r.id, frequency: r.frequency, priority: r.priority, windows: r.windows, steps: r.steps, enabled: r.enabled };
  return { source: 'default', ruleId: null, frequency: defaultFrequency, priority: DEFAULT_PRIORITY, windows: [], steps: DEFAULT_STEPS, enabled: true };
}

export interface UatSchedule {
  /** When the UAT is due (last sync + frequency; now-ish when it never synced); null = manual/disabled. */
  dueAt: number | null;
  /** When the scheduler will start it: the due time moved into the rule's next window. */
  runAt: number | null;
}

/** Due and start times of a UAT under its resolved rule. `lastSyncAt` null = never synced: due at once. */
export function scheduleFor(rule: ResolvedRule & { enabled: boolean }, lastSyncAt: number | null, now: number): UatSchedule {
  if (!rule.enabled) return { dueAt: null, runAt: null };
  const dueAt = lastSyncAt === null ? (rule.frequency === 'manual' ? null : now) : dueAfter(rule.frequency, lastSyncAt);
  if (dueAt === null) return { dueAt: null, runAt: null };
  return { dueAt, runAt: nextOpenAt(rule.windows, Math.max(dueAt, now)) };
}

/** Spec 2.6 step codes → the layers of the sync (T parcels, C buildings). */
export function layersOf(steps: readonly StepCode[]): string[] {
  const out: string[] = [];
  if (steps.includes('T')) out.push('TERENURI_ACTIVE');
  if (steps.includes('C')) out.push('CLADIRI_ACTIVE');
  return out;
}

/** Priority 1 first, then the longest overdue, then siruta (a stable order). */
export function byPriority<T extends { priority: number; dueAt: number; siruta: number }>(a: T, b: T): number {
  return a.priority - b.priority || a.dueAt - b.dueAt || a.siruta - b.siruta;
}

// The other pure modules of the area, for the API's schemas, the pages and the workflows.
export { AUTO_REFRESH_MIN_GAP_MS, delayBeforeStart, refreshModeFor, staggerPlan } from './autoRefresh';
export { AUTO_REFRESH_WINDOWS, sessionWeekendWindow, wallClock, weekendWindow, windowProblems, windowState, type TimeWindow } from './windows';
export { STEP_STATES, WEEKEND_STEPS } from './weekendSteps';
