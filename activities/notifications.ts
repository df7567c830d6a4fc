/**
 * Activities of the `notifications` task queue: every workflow that tells a user something calls
 * `notify` here (domain/notifications), with an idempotency key so a retry never doubles it.
 */
import type { Db } from '../domain/db/pool';
import { notify, type NotifyInput, type NotifyResult } from '../domain/notifications/notify';

export function createNotificationActivities({ db }: { db: Db }) {
  return {
    async notify(input: NotifyInput): Promise<NotifyResult> {
      return notify(db, input);
    },
  };
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;
