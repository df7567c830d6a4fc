/**
 * Notification workflows (docs/notifications.md).
 *
 * `deliverMail`: sends one outbox row (domain/notifications/outbox.ts). The activity is retried
 * until the SMTP server accepts the mail (SMTP down for hours → the row waits, then goes once);
 * it is a no-op for a row already sent. `mailOutboxSweep` (schedule) restarts deliveries whose
 * start was lost. `dailyDigest` (schedule, 07:00 Europe/Bucharest) builds and queues the day's
 * digests.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { NotificationActivities } from '../activities/notifications';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';

const mail = proxyActivities<NotificationActivities>({
  taskQueue: TaskQueue.notifications,
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  // No attempt cap: a relay down over a weekend still gets the mail out when it returns;
  // the interval cap keeps the wait after recovery short.
  scheduleToCloseTimeout: '7 days',
  retry: RETRY.mail,
});
const digest = proxyActivities<NotificationActivities>({
  taskQueue: TaskQueue.notifications,
  startToCloseTimeout: '15 minutes',
  ...KEPT_ALIVE,
  retry: RETRY.periodic,
});

export async function deliverMail(outboxId: string): Promise<{ outcome: string }> {
  const r = await mail.sendOutboxMail(outboxId);
  return { outcome: r.outcome };
}

export async function mailOutboxSweep(): Promise<{ restarted: number }> {
  return { restarted: await mail.restartStaleMail() };
}

/** The 07:00 digest run: one activity builds and queues every user's digest (idempotent per day). */
export async function dailyDigest(): Promise<{ date: string; sent: number; skipped: number }> {
  const r = await digest.runDailyDigest();
  return { date: r.date, sent: r.sent, skipped: r.skipped };
}
