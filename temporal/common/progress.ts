/**
 * The progress every job workflow answers and temporal/jobs.ts reads in one place (`readJob`,
 * behind `jobProgress` and the monitors): one query name and one shape, so a new job is readable
 * through `GET /api/landreg/progress` without a reader of its own. What a kind shows beyond the
 * common record (the tile rebuild's wait, the weekend session's window, a CF queue's orders) is
 * its typed `detail`. Workflow-safe (no I/O).
 */
import { defineQuery } from '@temporalio/workflow';

/** CONTRACT.md progress record, minus what the API adds from the execution (jobId, kind, times). */
export interface ProgressState<D = never> {
  status: 'running' | 'done' | 'failed';
  phase: string;
  current: number;
  total: number;
  message: string;
  error?: string;
  /** The kind's own view (not part of the CONTRACT.md body). */
  detail?: D;
}

export const progressQuery = defineQuery<ProgressState<unknown>>('progress');
