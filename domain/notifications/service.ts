/**
 * The notifications' door (docs/architecture.md "Areas"): the inbox, preferences and watchlist of
 * the notification routes (api/routes/notifications.ts), the pages' loaders (through the load
 * context) and the bell of the layout; the daily digest; the mail delivery of the `notifications`
 * queue's activities; and `notify`, the one way another area raises a notification. Built once per
 * process by `domain/services.ts`. Its pure rules (types, preference keys) are in `rules.ts`.
 */
import type { Viewer } from '../auth/rules';
import type { AreaDeps } from '../areaDeps';
import { runDailyDigest, sendAdminTestDigests, sendTestDigest, type DigestSources } from './digest';
import { getPreferences, inbox, markRead, setPreferences, unread } from './inbox';
import { mailReport, notify, type MailReportInput } from './notify';
import { deliverOutboxMail, dispatchMail, stalePendingMail } from './outbox';
import type { NotifyInput, Preferences } from './rules';
import { directoryNames, recordSignIn, type DirectoryUser } from './users';
import { addWatch, featureHistory, listWatches, notifyFeatureChanges, removeWatch } from './watch';

export type { DigestRunResult } from './digest';
export type { InboxItem } from './inbox';
export type { MailReportInput, NotifyResult } from './notify';
export type { DeliveryResult } from './outbox';
export type { NotifyInput, Preferences } from './rules';
export type { HistoryItem, WatchItem } from './watch';

/**
 * Called from deep inside other areas' writes (an export's, a sync's or an enrichment's store, a
 * backup's check), which hold the pool and the delivery start rather than the services: the same
 * functions the service's calls bind, taking those explicitly.
 */
export { adminUsers } from './users';
export { notify, notifyFeatureChanges };

/**
 * What the other areas' services are built on: `notify`, the watchlist's `notifyFeatureChanges`
 * and the users directory's names. They are
 * built before the whole service, whose digest reads them (`domain/services.ts`).
 */
export function createNotifier({ store, mail }: AreaDeps) {
  return {
    /** Records the notification (once per idempotency key) and starts its e-mail if the user wants one. */
    notify: (n: NotifyInput) => notify(store.pool, mail, n),
    /** The e-mail and name of each of these users the directory knows, by id. */
    directoryNames: (ids: readonly string[]) => directoryNames(store.prisma, ids),
    /** Followers of the changed features told (`watch-change`); answers how many notifications were written. */
    notifyFeatureChanges: (scope: Parameters<typeof notifyFeatureChanges>[2]) => notifyFeatureChanges(store.pool, mail, scope),
  };
}

export interface NotificationsDeps extends AreaDeps {
  /** The digest's reads of the registry and the CF area, their services' calls. */
  digest: DigestSources;
}

export function createNotificationsService(deps: NotificationsDeps) {
  const { store, mail, outside, clock, digest } = deps;
  const { prisma, pool } = store;
  return {
    ...createNotifier(deps),
    /** A report e-mail that is not an inbox item (the weekend sync's session report). */
    mailReport: (r: MailReportInput) => mailReport(pool, mail, r),
    /** Remembers the signed-in user's address and company: the notifications mail users they know from their sign-ins. */
    recordSignIn: (u: Parameters<typeof recordSignIn>[1]) => recordSignIn(pool, u),

    inbox: (userId: string, opts: { limit: number; unreadOnly?: boolean }) => inbox(prisma, userId, opts),
    /** The bell's count. */
    unread: (userId: string) => unread(prisma, userId),
    markRead: (userId: string, what: { ids: string[] } | { all: true }) => markRead(prisma, userId, what),
    getPreferences: (userId: string) => getPreferences(prisma, userId),
    setPreferences: (userId: string, change: Partial<Preferences>) => setPreferences(prisma, userId, change),

    listWatches: (userId: string) => listWatches(prisma, userId),
    addWatch: (userId: string, what: { featureId: string } | { siruta: number }) => addWatch(pool, userId, what),
    removeWatch: (userId: string, id: string) => removeWatch(prisma, userId, id),
    /** A feature's change history, personal fields hidden from a viewer who may not see them. */
    featureHistory: (featureId: string, viewer: Viewer) => featureHistory(prisma, featureId, viewer),

    /** The day's digests (`userIds`: only these users); a second run on the same day sends nobody twice. */
    runDailyDigest: (opts: { now?: Date; userIds?: string[] } = {}) => runDailyDigest(pool, mail, digest, { now: clock(), ...opts }),
    /** The caller's own digest as of now, to the caller only, marked as a test. */
    sendTestDigest: (caller: { id: string; email: string; name: string; company: DirectoryUser['company'] }) => sendTestDigest(pool, mail, digest, caller, clock()),
    /** A test digest to each administrator of the directory (the cron's own test). */
    sendAdminTestDigests: () => sendAdminTestDigests(pool, mail, digest, clock()),

    /** Sends one outbox row; throws while the SMTP server is down or refuses (the workflow retries). */
    sendOutboxMail: (outboxId: string) => deliverOutboxMail(pool, outboxId, outside.smtp),
    /** Restarts the delivery of mails whose start was lost; answers how many. */
    async restartStaleMail() {
      const ids = await stalePendingMail(pool);
      await dispatchMail(mail, ids);
      return ids.length;
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
