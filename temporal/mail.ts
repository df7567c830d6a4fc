/**
 * Starts the delivery of queued mails (domain/notifications/outbox.ts): one `deliverMail`
 * workflow per outbox row, id `deliver-mail:<outbox id>`, so a second start of the same row
 * while it runs is refused by Temporal and is a no-op here.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { setMailDispatcher } from '../domain/notifications/outbox';
import { getTemporalClient } from './client';
import { singletonWorkflowId } from './ids';
import { TaskQueue } from './queues';

export function deliverMailWorkflowId(outboxId: string): string {
  return singletonWorkflowId('deliver-mail', outboxId);
}

export async function startMailDelivery(client: Client, outboxId: string, taskQueue: string = TaskQueue.store): Promise<void> {
  try {
    await client.workflow.start('deliverMail', {
      workflowId: deliverMailWorkflowId(outboxId),
      taskQueue,
      args: [outboxId],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Makes this process start deliveries (API server, workers; tests pass their own client and
 * queue). `taskQueue` is where the workflow runs (the store queue carries every workflow).
 */
export function installMailDispatcher(opts: { client?: () => Promise<Client>; taskQueue?: string } = {}): void {
  const client = opts.client ?? (() => getTemporalClient());
  setMailDispatcher(async (id) => startMailDelivery(await client(), id, opts.taskQueue ?? TaskQueue.store));
}
