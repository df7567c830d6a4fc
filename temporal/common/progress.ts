/**
 * The progress every job workflow answers and temporal/jobs.ts `jobProgress` reads (the
 * CONTRACT.md progress record): one query name and one shape, so a new job is readable through
 * `GET /api/landreg/progress` without a reader of its own. Workflow-safe (no I/O).
 */
import { defineQuery } from '@temporalio/workflow';

/** CONTRACT.md progress record, minus what the API adds from the execution (jobId, kind, times). */
export interface ProgressState {
  status: 'running' | 'done' | 'failed';
  phase: string;
  current: number;
  total: number;
  message: string;
  error?: string;
}

export const progressQuery = defineQuery<ProgressState>('progress');
