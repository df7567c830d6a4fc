/**
 * `deliverMail`: sends one outbox row (domain/notifications/outbox.ts). The activity is retried
 * until the SMTP server accepts the mail (SMTP down for hours → the row waits, then goes once);
 * it is a no-op for a row already sent. `mailOutboxSweep` (schedule) restarts deliveries whose
 * start was lost.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications';
import { TaskQueue } from '../temporal/queues';
import { siblingQueue } from './landregShared';

function mailActivities() {
  return proxyActivities<NotificationActivities>({
    taskQueue: siblingQueue(TaskQueue.notifications),
    startToCloseTimeout: '1 minute',
    // No attempt cap: a relay down over a weekend still gets the mail out when it returns;
    // the interval cap keeps the wait after recovery short.
    scheduleToCloseTimeout: '7 days',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '20 seconds' },
  });
}

export async function deliverMail(outboxId: string): Promise<{ outcome: string }> {
  const r = await mailActivities().sendOutboxMail(outboxId);
  return { outcome: r.outcome };
}

export async function mailOutboxSweep(): Promise<{ restarted: number }> {
  return { restarted: await mailActivities().restartStaleMail() };
}
