/**
 * What the scheduling jobs take and answer (workflows/scheduling.ts), and the weekend session's
 * view (its progress detail, read by the queue page): shared by the workflows and their starters
 * (domain/jobWorkflows.ts).
 */
import type { SessionTally } from './report';

export type { SessionTally };
export type { NextStep } from './weekend';
export type { WeekendStep } from './weekendSteps';

export interface SchedulerTickResult {
  started: Array<{ siruta: number; jobId: string }>;
  alreadyRunning: number[];
  deferred: number[];
}

export type WeekendSyncStatus = 'idle' | 'running' | 'waiting_window' | 'paused';

export interface WeekendState {
  syncStatus: WeekendSyncStatus;
  currentActivity: string | null;
  forced: boolean;
  /** When the session waits for a window: its start (ms). */
  nextWindowStart: number | null;
}

export interface WeekendSyncArgs {
  forced?: boolean;
  /** Set by a trigger: the city being worked on runs now, whatever the window. */
  runNow?: boolean;
  /** A trigger from a city's row: that city runs now, before the queue's order. */
  runNowSiruta?: number;
  /** Friday's kick: start the queue over when the previous weekend finished it. */
  newWeekend?: boolean;
  tally?: SessionTally;
  /** Default true, as for the other syncs; tests switch the tile rebuild off so no orphan rebuild outlives them. */
  requestTileRebuild?: boolean;
}

