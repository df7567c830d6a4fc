/**
 * The mail outbox: every e-mail the service sends is first a row of `mail_outbox` with an
 * idempotency key (a repeat writes nothing), then delivered by the `deliverMail` workflow, whose
 * activity sends it once and marks it sent only after the SMTP server accepted it. SMTP down →
 * the activity fails and Temporal retries it; the row waits, nothing is lost or doubled.
 *
 * Domain code cannot start workflows (dependencies point one way), so whoever queues a mail
 * passes in how its delivery starts (`StartDelivery`: temporal/mail.ts `mailDelivery`, built
 * by the route or the activity factory on its store). With none, or when the start fails, the
 * periodic outbox sweep (schedule `mail-outbox-sweep`) starts the delivery later.
 */
import type { StartDelivery } from '../areaDeps';
import type { Db } from '../db/pool';
import { childLogger } from '../log';
import { config } from '../config';
import { mailTransport, type SmtpTarget } from '../mail/transport';
import type { RenderedMail } from '../mail/templates';

const log = childLogger('mail-outbox');

export type MailKind = 'notification' | 'digest' | 'test-digest' | 'report';

export interface OutboxMail extends RenderedMail {
  idempotencyKey: string;
  kind: MailKind;
  recipients: string[];
  userIds?: string[];
}

export type { StartDelivery } from '../areaDeps';

/** Starts delivery of queued rows now; failures are left to the sweep (never thrown at the caller). */
export async function dispatchMail(deliver: StartDelivery, ids: readonly string[]): Promise<void> {
  if (!deliver || ids.length === 0) return;
  for (const id of ids) {
    try {
      await deliver(id);
    } catch (err) {
      log.warn({ outboxId: id, err: (err as Error).message }, 'mail delivery not started; the outbox sweep will retry');
    }
  }
}

/**
 * Queues a mail inside the caller's transaction (`db` may be a transaction client). Returns the
 * row id, and whether it still waits for delivery (a repeat of a sent key answers pending=false).
 */
export async function queueMail(db: Pick<Db, 'query'>, m: OutboxMail): Promise<{ id: string; pending: boolean } | null> {
  if (m.recipients.length === 0) return null;
  const r = await db.query<{ id: string; status: string }>(
    `WITH ins AS (
       INSERT INTO mail_outbox (idempotency_key, kind, user_ids, recipients, subject, html, text)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (idempotency_key) DO NOTHING
       RETURNING id, status)
     SELECT id, status FROM ins
     UNION ALL SELECT id, status FROM mail_outbox WHERE idempotency_key = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
    [m.idempotencyKey, m.kind, m.userIds ?? [], m.recipients, m.subject, m.html, m.text],
  );
  const row = r.rows[0];
  return row ? { id: row.id, pending: row.status === 'pending' } : null;
}

/** queueMail on its own, then dispatch. */
export async function enqueueMail(db: Db, deliver: StartDelivery, m: OutboxMail): Promise<{ id: string; pending: boolean } | null> {
  const q = await queueMail(db, m);
  if (q?.pending) await dispatchMail(deliver, [q.id]);
  return q;
}

export interface DeliveryResult {
  outcome: 'sent' | 'already-sent' | 'missing';
  messageId?: string;
}

/**
 * Sends one outbox row unless it was sent already. Throws when the SMTP server is unreachable or
 * refuses, so the activity is retried. The Message-ID is derived from the row, so even the narrow
 * window (accepted, then the worker died before the UPDATE) resends the same message, which mail
 * clients fold into one.
 */
export async function deliverOutboxMail(db: Db, outboxId: string, smtp?: SmtpTarget): Promise<DeliveryResult> {
  const r = await db.query<{ status: string; recipients: string[]; subject: string; html: string; text: string }>(
    `UPDATE mail_outbox SET attempts = attempts + 1 WHERE id = $1 RETURNING status, recipients, subject, html, text`,
    [outboxId],
  );
  const row = r.rows[0];
  if (!row) return { outcome: 'missing' };
  if (row.status === 'sent') return { outcome: 'already-sent' };
  const messageId = `<${outboxId}@${new URL(config.app.publicUrl).hostname}>`;
  try {
    const info = await mailTransport(smtp).sendMail({
      from: config.mail.from,
      to: row.recipients,
      subject: row.subject,
      html: row.html,
      text: row.text,
      messageId,
    });
    await db.query(
      `UPDATE mail_outbox SET status = 'sent', sent_at = now(), message_id = $2, smtp_response = $3, last_error = NULL WHERE id = $1`,
      [outboxId, messageId, String(info.response ?? '')],
    );
    return { outcome: 'sent', messageId };
  } catch (err) {
    await db.query(`UPDATE mail_outbox SET last_error = $2 WHERE id = $1`, [outboxId, (err as Error).message.slice(0, 500)]);
    throw err;
  }
}

/** Rows still pending after `olderThanSeconds` (their dispatch was lost): the sweep restarts them. */
export async function stalePendingMail(db: Db, olderThanSeconds = 60, limit = 500): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `SELECT id FROM mail_outbox WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1)
      ORDER BY created_at LIMIT $2`,
    [olderThanSeconds, limit],
  );
  return r.rows.map((x) => x.id);
}
