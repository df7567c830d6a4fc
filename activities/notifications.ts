/**
 * Activities of the `notifications` task queue, each one call of the notifications' service:
 * every workflow that tells a user something calls `notify` here, with an idempotency key so a
 * retry never doubles it; the mail delivery (`deliverMail` workflow) sends outbox rows here.
 */
import type { DeliveryResult, DigestRunResult, MailReportInput, NotificationsService, NotifyInput, NotifyResult } from '../domain/notifications/service';
import { keptAlive } from './heartbeat';

export function createNotificationActivities({ notifications }: { notifications: NotificationsService }) {
  return keptAlive({
    async notify(input: NotifyInput): Promise<NotifyResult> {
      return notifications.notify(input);
    },

    async mailReport(input: MailReportInput): Promise<{ outboxId: string | null; recipients: number }> {
      return notifications.mailReport(input);
    },

    /** Throws while the SMTP server is down or refuses: the workflow's retry policy waits it out. */
    async sendOutboxMail(outboxId: string): Promise<DeliveryResult> {
      return notifications.sendOutboxMail(outboxId);
    },

    /** Mails whose delivery start was lost (a process died between queueing and starting). */
    async restartStaleMail(): Promise<number> {
      return notifications.restartStaleMail();
    },

    /** The day's digests, by the schedule's clock (a retry on the same day sends nobody twice). */
    async runDailyDigest(): Promise<DigestRunResult> {
      return notifications.runDailyDigest();
    },
  });
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;
