/**
 * Starts the delivery of queued mails (domain/notifications/outbox.ts): one `deliverMail`
 * workflow per outbox row, id `deliver-mail:<outbox id>`, so a second start of the same row
 * while it runs is refused by Temporal and is a no-op here.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { setMailDispatcher } from '../domain/notifications/outbox';
import { singletonWorkflowId } from './ids';
import { launchJob } from './jobs';

export function deliverMailWorkflowId(outboxId: string): string {
  return singletonWorkflowId('deliver-mail', outboxId);
}

async function startMailDelivery(outboxId: string): Promise<void> {
  try {
    await launchJob({ workflowType: 'deliverMail', jobId: deliverMailWorkflowId(outboxId), kind: 'deliver-mail', args: [outboxId] });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** Makes this process (API server, workers, a test) start the deliveries of the mails it queues. */
export function installMailDispatcher(): void {
  setMailDispatcher(startMailDelivery);
}
