/**
 * Activities of the `notifications` task queue: every workflow that tells a user something calls
 * `notify` here (domain/notifications), with an idempotency key so a retry never doubles it; the
 * mail delivery (`deliverMail` workflow) sends outbox rows here.
 */
import type { Db } from '../domain/db/pool';
import type { SmtpTarget } from '../domain/mail/transport';
import { mailReport, notify, type MailReportInput, type NotifyInput, type NotifyResult } from '../domain/notifications/notify';
import { runDailyDigest, type DigestRunResult } from '../domain/notifications/digest';
import { deliverOutboxMail, dispatchMail, stalePendingMail, type DeliveryResult, type StartDelivery } from '../domain/notifications/outbox';

export function createNotificationActivities({ db, smtp, deliverMail }: { db: Db; smtp?: SmtpTarget; deliverMail: StartDelivery }) {
  return {
    async notify(input: NotifyInput): Promise<NotifyResult> {
      return notify(db, deliverMail, input);
    },

    async mailReport(input: MailReportInput): Promise<{ outboxId: string | null; recipients: number }> {
      return mailReport(db, deliverMail, input);
    },

    /** Throws while the SMTP server is down or refuses: the workflow's retry policy waits it out. */
    async sendOutboxMail(outboxId: string): Promise<DeliveryResult> {
      return deliverOutboxMail(db, outboxId, smtp);
    },

    /** Mails whose delivery start was lost (a process died between queueing and starting). */
    async restartStaleMail(): Promise<number> {
      const ids = await stalePendingMail(db);
      await dispatchMail(deliverMail, ids);
      return ids.length;
    },

    /** The day's digests, by the schedule's clock (a retry on the same day sends nobody twice). */
    async runDailyDigest(): Promise<DigestRunResult> {
      return runDailyDigest(db, deliverMail);
    },
  };
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;
