/**
 * The notifications module: the ONE way any area tells a user something (spec 6, CONTRACT.md
 * section 3). `notify` stores the in-app record unless the user turned the type off, and is
 * idempotent by `idempotencyKey`, so a retried activity never writes (or, later, mails) twice.
 * Workflows reach it through the `notify` activity of activities/notifications.ts.
 */
import type { Db } from '../db/pool';

export const NOTIFICATION_TYPES = [
  'status-change',
  'county-sync-done',
  'registry-deadline',
  'weekend-sync-failed',
  'cf-extract-ready',
  'export-ready',
  'watch-change',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Preference column of each type (notification_preferences). */
export const PREFERENCE_COLUMN: Record<NotificationType, string> = {
  'status-change': 'status_change',
  'county-sync-done': 'county_sync_done',
  'registry-deadline': 'registry_deadline',
  'weekend-sync-failed': 'weekend_sync_failed',
  'cf-extract-ready': 'cf_extract_ready',
  'export-ready': 'export_ready',
  'watch-change': 'watch_change',
};

export interface NotifyInput {
  userId: string;
  type: NotificationType;
  /** Romanian, shown in the inbox and as the e-mail subject. */
  title: string;
  body: string;
  /** Same-origin path of the item (`/registratura?id=…`). */
  link?: string;
  /** Stable per event and user (e.g. `cf-extract-ready:<extractId>`): a repeat is a no-op. */
  idempotencyKey?: string;
}

export interface NotifyResult {
  /** False when the user turned the type off or the key was already used. */
  created: boolean;
  id?: string;
}

export async function notify(db: Db, n: NotifyInput): Promise<NotifyResult> {
  const column = PREFERENCE_COLUMN[n.type];
  const r = await db.query<{ id: string }>(
    `INSERT INTO notifications (user_id, type, title, body, link, idempotency_key)
     SELECT $1, $2, $3, $4, $5, $6
      WHERE COALESCE((SELECT ${column} FROM notification_preferences WHERE user_id = $1), true)
     ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING id`,
    [n.userId, n.type, n.title, n.body, n.link ?? null, n.idempotencyKey ?? null],
  );
  return r.rows[0] ? { created: true, id: r.rows[0].id } : { created: false };
}
