/**
 * What the parcel-sync workflows share: activity proxies grouped by task queue, the `progress`
 * query, and deterministic job ids for children (docs/sync.md). Workflow code only: no I/O.
 */
import { defineQuery, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { LandregPortalActivities, LandregStoreActivities } from '../activities/landreg';
import { TaskQueue } from '../temporal/queues';
import { RETRY } from '../temporal/retryPolicies';

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

/** Portal calls of the parcel-sync workflows, on the rate-limited landreg queue. */
export const landregActivities = proxyActivities<LandregPortalActivities>({
  taskQueue: TaskQueue.landreg,
  // A download activity handles a few pages of 1000 features; a minute each is generous.
  startToCloseTimeout: '15 minutes',
  // Portal activities heartbeat every 5 s while alive (activities/landreg.ts keepAlive): a
  // killed worker's downloads are retried elsewhere after 20 s, from their page cursor.
  heartbeatTimeout: '20 seconds',
  retry: RETRY.portal,
});

/** Store-only work of the parcel-sync workflows. */
export const storeActivities = proxyActivities<LandregStoreActivities>({
  taskQueue: TaskQueue.store,
  startToCloseTimeout: '5 minutes',
  // They heartbeat while alive too: one on a killed worker is retried elsewhere after 20 s.
  heartbeatTimeout: '20 seconds',
  retry: RETRY.store,
});

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID made deterministically inside a workflow (workflow time + the replay-safe uuid4), so
 * children get ids of the `<kind>:<scope>:<ulid>` convention (temporal/ids.ts).
 */
export function workflowUlid(): string {
  let t = Date.now();
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const hex = uuid4().replace(/-/g, '');
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return time + rand;
}

/** `<kind>:<scope>:<ulid>` for a child job (scope without ':'). */
export function childJobId(kind: string, scope: string | number): string {
  return `${kind}:${String(scope).replace(/:/g, '-')}:${workflowUlid()}`;
}

export { failureMessage } from '../temporal/failures';
