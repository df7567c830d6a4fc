/**
 * The weekend queue's steps and their states (spec 3.4), pure: the API's schemas, the report and
 * the workflow read them without the queue's store (weekend.ts).
 */
import { WEEKEND_STEP_LABELS } from '../text/labels';

export const WEEKEND_STEPS = ['sync_terenuri', 'sync_cladiri', 'import_nogeom', 'enrich'] as const;
export type WeekendStep = (typeof WEEKEND_STEPS)[number];
export const STEP_STATES = ['pending', 'running', 'done', 'error', 'skipped'] as const;
export type StepState = (typeof STEP_STATES)[number];
export type StepStates = Record<WeekendStep, StepState>;

/** Romanian names of the steps, for the UI, notifications and the report. */
export const STEP_LABELS: Record<WeekendStep, string> = WEEKEND_STEP_LABELS;
