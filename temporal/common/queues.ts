/**
 * The task queues of ARCHITECTURE.md ("The runtime"). Each queue is one worker pool with its own
 * concurrency and rate limits, so a flood of work on one (e.g. landreg portal calls) never starves
 * another (e.g. notifications).
 */
export const TaskQueue = {
  /** Calls to the land-registry portal; rate-limited so parallel syncs never flood it. */
  landreg: 'landreg',
  /** Store-only work: housekeeping, sync bookkeeping, registry. */
  store: 'store',
  /** GPKG/DXF/ZIP exports and the PMTiles archive (CPU and disk heavy). */
  exports: 'exports',
  /** The CF extract order pipeline (one order at a time). */
  cfOrders: 'cf-orders',
  /** E-mail digests and notifications. */
  notifications: 'notifications',
} as const;

export type TaskQueueName = (typeof TaskQueue)[keyof typeof TaskQueue];

export const allTaskQueues: readonly TaskQueueName[] = Object.values(TaskQueue);

export function isTaskQueueName(value: string): value is TaskQueueName {
  return (allTaskQueues as readonly string[]).includes(value);
}

