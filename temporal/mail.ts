/**
 * Starts the delivery of queued mails (domain/notifications/outbox.ts): one `deliver-mail` job
 * per outbox row (the job table's singleton `deliver-mail:<outbox id>`), so a second start of the
 * same row while it runs is the same delivery.
 */
import type { Db } from '../domain/db/pool';
import { setMailDispatcher } from '../domain/notifications/outbox';
import { singletonWorkflowId } from './ids';
import { start } from './jobs';

export function deliverMailWorkflowId(outboxId: string): string {
  return singletonWorkflowId('deliver-mail', outboxId);
}

/** Makes this process (API server, workers, a test) start the deliveries of the mails it queues, on its store (`db`). */
export function installMailDispatcher(db: Db): void {
  setMailDispatcher(async (outboxId) => {
    await start('deliver-mail', outboxId, { db, existing: 'accept' });
  });
}
