/**
 * The notifications module: the ONE way any area tells a user something (spec 6, CONTRACT.md
 * section 3). `notify` stores the in-app record unless the user turned the type off, decides the
 * e-mail channel from the user's preferences, and is idempotent by `idempotencyKey`, so a retried
 * activity never writes or mails twice:
 *   - type off                         → nothing (no record, no mail);
 *   - `instantEmail` on, or `critical` → an instant e-mail, queued in the same statement as the
 *                                        record (mail_outbox) and delivered by Temporal;
 *   - otherwise, `dailyDigest` on      → held for the 07:00 digest;
 *   - otherwise                        → in-app only.
 * Routes call `notify(db, …)` directly; workflows call the `notify` activity of
 * activities/notifications.ts. Both get the e-mail without extra work. Reports that are not inbox
 * items (the weekend sync's session report) go through `mailReport`.
 */
import type { Db } from '../db/pool';
import { notificationMail, reportMail } from '../mail/templates';
import { dispatchMail, enqueueMail, type StartDelivery } from './outbox';
import { adminUsers, usersByIds } from './users';
import type { NotificationType, NotifyInput } from './rules';

/** Preference column of each type (notification_preferences). */
export const PREFERENCE_COLUMN: Record<NotificationType, string> = {
  'status-change': 'status_change',
  'county-sync-done': 'county_sync_done',
  'registry-deadline': 'registry_deadline',
  'weekend-sync-failed': 'weekend_sync_failed',
  'cf-extract-ready': 'cf_extract_ready',
  'export-ready': 'export_ready',
  'watch-change': 'watch_change',
  'backup-failed': 'backup_failed',
};

export type EmailChannel = 'instant' | 'digest';

export interface NotifyResult {
  /** False when the user turned the type off or the key was already used. */
  created: boolean;
  id?: string;
  /** How the e-mail goes: at once, in the digest, or not at all (null: in-app only / no address). */
  email?: EmailChannel | null;
}

interface Recipient {
  email: string | null;
  type_on: boolean;
  instant_email: boolean;
  daily_digest: boolean;
}

/** Pure: the e-mail channel a notification gets. */
export function emailChannel(p: { email: string | null; instantEmail: boolean; dailyDigest: boolean }, critical: boolean): EmailChannel | null {
  if (!p.email) return null;
  if (p.instantEmail || critical) return 'instant';
  return p.dailyDigest ? 'digest' : null;
}

export async function notify(db: Db, deliver: StartDelivery, n: NotifyInput): Promise<NotifyResult> {
  const column = PREFERENCE_COLUMN[n.type];
  // app_users holds the address (filled at sign-in); a preference row may override it.
  const pr = await db.query<Recipient>(
    `SELECT COALESCE(p.email, u.email) AS email,
            COALESCE(p.${column}, true) AS type_on,
            COALESCE(p.instant_email, true) AS instant_email,
            COALESCE(p.daily_digest, true) AS daily_digest
       FROM (SELECT $1::text AS id) x
       LEFT JOIN app_users u ON u.id = x.id
       LEFT JOIN notification_preferences p ON p.user_id = x.id`,
    [n.userId],
  );
  const p = pr.rows[0];
  if (!p.type_on) return { created: false };
  const channel = emailChannel({ email: p.email, instantEmail: p.instant_email, dailyDigest: p.daily_digest }, n.critical === true);
  const mail = channel === 'instant' ? await notificationMail(n) : null;
  const outboxKey = n.idempotencyKey ? `notification:${n.idempotencyKey}` : null;

  // One statement: the record and its instant mail exist together or not at all, whatever
  // transaction the caller's `db` is in.
  const r = await db.query<{ id: string; mail_id: string | null }>(
    `WITH n AS (
       INSERT INTO notifications (user_id, type, title, body, link, idempotency_key, email_channel, emailed_at, critical)
       VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 = 'instant' THEN now() END, $8)
       ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING id),
     m AS (
       INSERT INTO mail_outbox (idempotency_key, kind, user_ids, recipients, subject, html, text)
       SELECT COALESCE($9, 'notification:' || n.id), 'notification', ARRAY[$1::text], ARRAY[$10::text], $3, $11, $12
         FROM n WHERE $7 = 'instant'
       ON CONFLICT (idempotency_key) DO NOTHING
       RETURNING id)
     SELECT n.id, (SELECT id FROM m) AS mail_id FROM n`,
    [n.userId, n.type, n.title, n.body, n.link ?? null, n.idempotencyKey ?? null, channel, n.critical === true,
      outboxKey, p.email, mail?.html ?? '', mail?.text ?? ''],
  );
  const row = r.rows[0];
  if (row) {
    if (row.mail_id) await dispatchMail(deliver, [row.mail_id]);
    return { created: true, id: row.id, email: channel };
  }
  // A repeat (retried activity): the first attempt wrote both rows; make sure its mail is on its way.
  if (outboxKey) {
    const o = await db.query<{ id: string }>(`SELECT id FROM mail_outbox WHERE idempotency_key = $1 AND status = 'pending'`, [outboxKey]);
    await dispatchMail(deliver, o.rows.map((x) => x.id));
  }
  return { created: false };
}

export interface MailReportInput {
  /** 'admins' (every admin of the users directory) or user ids. */
  to: 'admins' | string[];
  subject: string;
  text: string;
  html?: string;
  /** Stable per report (e.g. `weekend-report:<sessionDate>`): a repeat mails nobody twice. */
  idempotencyKey: string;
}

/** A report e-mail that is not an inbox item; answers the outbox id (null: nobody to mail). */
export async function mailReport(db: Db, deliver: StartDelivery, r: MailReportInput): Promise<{ outboxId: string | null; recipients: number }> {
  const users = r.to === 'admins' ? await adminUsers(db) : await usersByIds(db, r.to);
  const recipients = [...new Set(users.map((u) => u.email).filter(Boolean))];
  if (recipients.length === 0) return { outboxId: null, recipients: 0 };
  const mail = await reportMail(r);
  const q = await enqueueMail(db, deliver, { ...mail, idempotencyKey: `report:${r.idempotencyKey}`, kind: 'report', recipients, userIds: users.map((u) => u.id) });
  return { outboxId: q?.id ?? null, recipients: recipients.length };
}

