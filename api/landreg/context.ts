/**
 * What the landreg routes talk to: the portal client, the store and the Temporal task queue that
 * runs the sync workflows. Production uses the process-wide defaults; an integration test points
 * them at its own simulator and its own isolated task queue.
 */
import type pg from 'pg';
import { getPool } from '../../domain/db/pool';
import { getLandregClient, type LandregClient } from '../../domain/landreg/client';
import { jobStartQueue } from '../../temporal/jobs';

export interface LandregApiContext {
  client: () => LandregClient;
  db: () => pg.Pool;
  /** Task queue on which the sync workflows are started (they run on the store queue). */
  workflowTaskQueue: string;
}

export const landregApi: LandregApiContext = {
  client: getLandregClient,
  db: getPool,
  // One setting with temporal/jobs.ts, which starts the jobs.
  get workflowTaskQueue() {
    return jobStartQueue.name;
  },
  set workflowTaskQueue(q: string) {
    jobStartQueue.name = q;
  },
};

export function configureLandregApi(overrides: Partial<LandregApiContext>): void {
  Object.assign(landregApi, overrides);
}
