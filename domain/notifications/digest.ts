/**
 * The daily digest (spec 6, CONTRACT.md section 5: 07:00 Europe/Bucharest). Per user of the
 * users directory with `dailyDigest` on: the registry numbers due, the CF extracts expiring within
 * 7 days, the last day's county and weekend sync results, the watchlist changes and the other
 * notifications held for the digest. Nobody with nothing to say gets a mail. What other areas keep
 * is read through them (the registry's due entries and the CF area's expiring extracts through
 * their services, handed in as `DigestSources`; the landreg store's sync results): their tables
 * are theirs (domain/db/owners.ts).
 */
import type { Db } from '../db/pool';
import { withTransaction } from '../db/pool';
import { digestMail, type DigestItem, type DigestSection } from '../mail/templates';
import { dispatchMail, queueMail, type StartDelivery } from './outbox';
import { recentSyncResults, type SyncResult } from '../landreg/service';
import { adminUsers, allUsers, usersByIds, type DirectoryUser } from './users';

export const DIGEST_TIME_ZONE = 'Europe/Bucharest';
/** Registry entries whose deadline falls within this many days (today included) are "due". */
export const REGISTRY_DUE_DAYS = 3;
export const CF_EXPIRY_DAYS = 7;

/** The Romanian calendar day of `at` (YYYY-MM-DD). */
export function bucharestDate(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: DIGEST_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

function roDate(d: Date | string): string {
  const date = typeof d === 'string' ? new Date(`${d}T12:00:00Z`) : d;
  return new Intl.DateTimeFormat('ro-RO', { timeZone: DIGEST_TIME_ZONE, day: '2-digit', month: '2-digit', year: 'numeric' }).format(date);
}

// ---- what each section reads ---------------------------------------------------------------

type Company = NonNullable<DirectoryUser['company']>;

/** A registry entry whose deadline falls due (the registry's `DueRegistryEntry`, as far as the digest reads it). */
export interface DueEntry {
  id: string;
  number: string;
  subject: string;
  /** YYYY-MM-DD */
  deadline: string;
}

/** A completed CF extract of the user about to expire (the CF area's `ExpiringExtract`). */
export interface ExpiringExtract {
  id: string;
  nrCadastral: string;
  expiresAt: Date;
}

/**
 * What the digest reads of the areas that keep it, their services' calls. Those areas are built
 * after this one (the registry notifies through it), so `domain/services.ts` hands them in once
 * built.
 */
export interface DigestSources {
  /** Entries with `from <= deadline <= to` (YYYY-MM-DD, inclusive) of these companies ('all': every one), soonest first. */
  dueEntries(opts: { from: string; to: string; companies: readonly Company[] | 'all' }): Promise<DueEntry[]>;
  /** The user's completed extracts still valid at `now` that expire within `days` days, soonest first. */
  expiringExtracts(userId: string, now: Date, days: number): Promise<ExpiringExtract[]>;
}

/** Entries of the user's company (company G: all companies) due from `today` within REGISTRY_DUE_DAYS, soonest first (at most 100). */
async function registryDue(sources: DigestSources, company: DirectoryUser['company'], today: string): Promise<DueEntry[]> {
  if (!company) return [];
  const last = new Date(`${today}T12:00:00Z`);
  last.setUTCDate(last.getUTCDate() + REGISTRY_DUE_DAYS - 1);
  const due = await sources.dueEntries({ from: today, to: last.toISOString().slice(0, 10), companies: company === 'G' ? 'all' : [company] });
  return due.slice(0, 100);
}

export interface HeldNotification {
  id: string;
  type: string;
  title: string;
  body: string;
  link: string | null;
}

/** Notifications waiting for the digest (email_channel = digest, not yet mailed). */
export async function heldNotifications(db: Db, userId: string, now: Date): Promise<HeldNotification[]> {
  const r = await db.query<HeldNotification>(
    `SELECT id, type, title, body, link FROM notifications
      WHERE user_id = $1 AND email_channel = 'digest' AND emailed_at IS NULL AND created_at <= $2
      ORDER BY created_at LIMIT 500`,
    [userId, now],
  );
  return r.rows;
}

interface DigestPrefs {
  daily_digest: boolean;
  registry_deadline: boolean;
  cf_extract_ready: boolean;
  county_sync_done: boolean;
  weekend_sync_failed: boolean;
  email: string | null;
}

async function prefsOf(db: Db, userId: string): Promise<DigestPrefs> {
  const r = await db.query<DigestPrefs>(
    `SELECT COALESCE(p.daily_digest, true) AS daily_digest, COALESCE(p.registry_deadline, true) AS registry_deadline,
            COALESCE(p.cf_extract_ready, true) AS cf_extract_ready, COALESCE(p.county_sync_done, true) AS county_sync_done,
            COALESCE(p.weekend_sync_failed, true) AS weekend_sync_failed, p.email
       FROM (SELECT $1::text AS id) x LEFT JOIN notification_preferences p ON p.user_id = x.id`,
    [userId],
  );
  return r.rows[0];
}

// ---- composing -------------------------------------------------------------------------------

export interface DigestContent {
  sections: DigestSection[];
  heldIds: string[];
}

function syncLine(s: SyncResult): DigestItem {
  const failed = s.failed > 0 ? `, ${s.failed} cu erori` : '';
  return { text: `${s.uatName}: ${s.layers} straturi${failed}; ${s.added} obiecte adăugate, ${s.removed} șterse`, link: `/parcel-sync?siruta=${s.siruta}` };
}

/** Pure: the digest's sections from what the queries found (empty sections left out). */
export function composeDigest(parts: {
  registry: DueEntry[];
  cf: ExpiringExtract[];
  syncs: SyncResult[];
  held: HeldNotification[];
}): DigestSection[] {
  const sections: DigestSection[] = [];
  const add = (title: string, items: DigestItem[]) => {
    if (items.length) sections.push({ title, items });
  };
  add('Termene în registratură', parts.registry.map((e) => ({ text: `${e.number} — ${e.subject || 'fără subiect'} (termen ${roDate(e.deadline)})`, link: `/registratura?id=${e.id}` })));
  add('Extrase CF care expiră în 7 zile', parts.cf.map((c) => ({ text: `Extras CF pentru nr. cadastral ${c.nrCadastral} — expiră pe ${roDate(c.expiresAt)}`, link: `/extrase-cf?id=${c.id}` })));
  add('Sincronizări pe județ (ultimele 24 de ore)', parts.syncs.filter((s) => s.trigger === 'county').map(syncLine));
  add('Sincronizarea de weekend (ultimele 24 de ore)', parts.syncs.filter((s) => s.trigger === 'weekend').map(syncLine));
  add('Parcele urmărite modificate', parts.held.filter((n) => n.type === 'watch-change').map((n) => ({ text: `${n.title}. ${n.body}`.trim(), link: n.link })));
  add('Alte notificări', parts.held.filter((n) => n.type !== 'watch-change').map((n) => ({ text: `${n.title}. ${n.body}`.trim(), link: n.link })));
  return sections;
}

export async function digestContent(db: Db, sources: DigestSources, user: DirectoryUser, prefs: DigestPrefs, now: Date, syncs: SyncResult[]): Promise<DigestContent> {
  const [registry, cf, held] = await Promise.all([
    prefs.registry_deadline ? registryDue(sources, user.company, bucharestDate(now)) : Promise.resolve([]),
    prefs.cf_extract_ready ? sources.expiringExtracts(user.id, now, CF_EXPIRY_DAYS) : Promise.resolve([]),
    heldNotifications(db, user.id, now),
  ]);
  const mine = syncs.filter((s) => (s.trigger === 'county' ? prefs.county_sync_done : prefs.weekend_sync_failed));
  return { sections: composeDigest({ registry, cf, syncs: mine, held }), heldIds: held.map((h) => h.id) };
}

export interface DigestRunResult {
  date: string;
  considered: number;
  sent: number;
  /** Users skipped: digest off, nothing to say, no address, or already sent today. */
  skipped: number;
  outboxIds: string[];
}

/**
 * Builds and queues the day's digests (`userIds`: only these users). A second run on the same
 * day sends nobody a second digest (key `digest:<user>:<date>`).
 */
export async function runDailyDigest(db: Db, deliver: StartDelivery, sources: DigestSources, opts: { now?: Date; userIds?: string[] } = {}): Promise<DigestRunResult> {
  const now = opts.now ?? new Date();
  const date = bucharestDate(now);
  const users = opts.userIds ? await usersByIds(db, opts.userIds) : await allUsers(db);
  const syncs = await recentSyncResults(db, now);
  const out: DigestRunResult = { date, considered: users.length, sent: 0, skipped: 0, outboxIds: [] };
  for (const user of users) {
    const prefs = await prefsOf(db, user.id);
    const email = prefs.email ?? user.email;
    const key = `digest:${user.id}:${date}`;
    const already = await db.query(`SELECT 1 FROM mail_outbox WHERE idempotency_key = $1`, [key]);
    if (!prefs.daily_digest || !email || already.rowCount) {
      out.skipped++;
      continue;
    }
    const content = await digestContent(db, sources, user, prefs, now, syncs);
    if (content.sections.length === 0) {
      out.skipped++;
      continue;
    }
    const mail = await digestMail({ name: user.name ?? email, dateLabel: roDate(now), sections: content.sections });
    // The digest row and "these held notifications went out" commit together.
    const queued = await withTransaction(async (tx) => {
      const q = await queueMail(tx, { ...mail, idempotencyKey: key, kind: 'digest', recipients: [email], userIds: [user.id] });
      if (content.heldIds.length) await tx.query(`UPDATE notifications SET emailed_at = now() WHERE id = ANY($1::uuid[])`, [content.heldIds]);
      return q;
    }, db);
    if (queued) {
      out.sent++;
      out.outboxIds.push(queued.id);
    }
  }
  await dispatchMail(deliver, out.outboxIds);
  return out;
}

/**
 * `POST /api/notifications/digest?test=true`: the caller's own digest as of now, sent only to the
 * caller's address, always (an empty one says so), marked as a test, holding nothing back.
 */
export async function sendTestDigest(db: Db, deliver: StartDelivery, sources: DigestSources, caller: { id: string; email: string; name: string; company: DirectoryUser['company'] }, now = new Date()): Promise<{ outboxId: string; sections: number }> {
  const prefs = await prefsOf(db, caller.id);
  const user: DirectoryUser = { id: caller.id, email: caller.email, name: caller.name, company: caller.company, isAdmin: false };
  const content = await digestContent(db, sources, user, prefs, now, await recentSyncResults(db, now));
  const mail = await digestMail({ name: caller.name || caller.email, dateLabel: roDate(now), sections: content.sections, test: true });
  const q = await queueMail(db, { ...mail, idempotencyKey: `test-digest:${caller.id}:${now.getTime()}`, kind: 'test-digest', recipients: [caller.email], userIds: [caller.id] });
  await dispatchMail(deliver, [q!.id]);
  return { outboxId: q!.id, sections: content.sections.length };
}

/**
 * `POST /api/notifications/digest?test=true` called by the cron with its bearer token (spec 4.5:
 * the route's authentication is the bearer token; there is no caller to mail): each
 * administrator of the directory gets their own test digest, as a signed-in caller would. Nobody
 * else is mailed and nothing is held back or marked as sent, so the day's real digest is untouched.
 */
export async function sendAdminTestDigests(db: Db, deliver: StartDelivery, sources: DigestSources, now = new Date()): Promise<{ to: string[] }> {
  const to: string[] = [];
  for (const admin of await adminUsers(db)) {
    if (!admin.email) continue;
    await sendTestDigest(db, deliver, sources, { id: admin.id, email: admin.email, name: admin.name ?? admin.email, company: admin.company }, now);
    to.push(admin.email);
  }
  return { to };
}
