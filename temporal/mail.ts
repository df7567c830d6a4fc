/**
 * Starts the delivery of queued mails (domain/notifications/outbox.ts): one `deliver-mail` job
 * per outbox row (the job table's singleton `deliver-mail:<outbox id>`), so a second start of the
 * same row while it runs is the same delivery.
 */
import type { StartDelivery } from '../domain/areaDeps';
import { singletonWorkflowId } from './ids';
import { start } from './jobs';

export function deliverMailWorkflowId(outboxId: string): string {
  return singletonWorkflowId('deliver-mail', outboxId);
}

/** How a route, page or activity factory starts the deliveries of the mails it queues. */
export const mailDelivery: StartDelivery = async (outboxId) => {
  await start('deliver-mail', outboxId, { existing: 'accept' });
};
