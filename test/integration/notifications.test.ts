/**
 * Notifications end to end: the real app (createApp), PostgreSQL, Temporal workers of this run
 * (store, landreg, notifications queues), the land-registry simulator and a real MailDev of this
 * file's own (test/helpers/maildev.ts), so the SMTP server can be stopped and started without
 * disturbing the stack. Mails are read back through MailDev's REST API.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../../api/app';
import { createStore } from '../../domain/db/store';
import { config } from '../../domain/config';
import { closePool } from '../../domain/db/pool';
import { disconnectPrisma } from '../../domain/db/prisma';
import { writeEnrichment } from '../../domain/enrichment/store';
import { notify } from '../../domain/notifications/notify';
import { MAX_WATCHES_PER_USER } from '../../domain/notifications/watch';
import type { NotifyResult } from '../../domain/notifications/service';
import { mailReport } from '../../domain/notifications/notify';
import { bucharestDate } from '../../domain/notifications/digest';
import { type Services } from '../../domain/services';
import { processServices } from '../../temporal/services';
import { createNotificationActivities } from '../../activities/notifications';
import { closeTemporalClient, getTemporalClient } from '../../temporal/client';
import { deliverMailWorkflowId, mailDelivery } from '../../temporal/mail';
import { TaskQueue } from '../../temporal/common/queues';
import { ensureSchedules, schedules, SCHEDULE_TIME_ZONE } from '../../temporal/schedules';
import { jobWorkflowId } from '../../temporal/ids';
import type { layerSync } from '../../workflows/layerSync';
import { createQueueWorkers } from '../../workers/start';
import { forgetUat, pickUat, startSyncRig, type SyncRig } from '../helpers/landregStack';
import { TestMailDev, type ReceivedMail } from '../helpers/maildev';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { heartbeatsOf, namespaceOf } from '../helpers/temporal';
import { callJson, listenApp } from '../helpers/appServer';
import type { StartDelivery } from '../../domain/areaDeps';

const store = createStore();

let rig: SyncRig;
let mail: TestMailDev;
let notifWorker: Worker;
let notifRun: Promise<void>;
/** How this file starts a mail's delivery: in its own namespace, on its notifications worker. */
let deliver: StartDelivery;
/** The areas' services on the rig's store, delivering with `deliver`. */
let services: Services;
let server: http.Server;
let base: string;
let dan: TestSession;
let mihai: TestSession;
let elena: TestSession;
const tag = randomUUID().slice(0, 8);
// Registry numbers must be in a registry format (`U-2026-9NNNN`): four digits from the run's tag.
const regNo = String(parseInt(tag.slice(0, 4), 16) % 10_000).padStart(4, '0');
const danEmail = `dan.${tag}@birou.ro`;
const mihaiEmail = `mihai.${tag}@birou.ro`;
const PUBLIC = config.app.publicUrl.replace(/\/+$/, '');
const registryIds: string[] = [];
const cfIds: string[] = [];
let siruta: number;

const api = (method: string, p: string, opts: { body?: unknown; who?: TestSession | null; bearer?: string } = {}) =>
  callJson(base, method, p, { body: opts.body, bearer: opts.bearer, cookie: opts.who === null ? undefined : (opts.who ?? dan).cookie });

async function outboxRow(where: string, params: unknown[]) {
  const r = await rig.db.query(`SELECT id, status, attempts, last_error, recipients FROM mail_outbox WHERE ${where}`, params);
  return r.rows[0];
}

async function until<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition never met');
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits until the outbox row is sent and its delivery workflow closed, so a late duplicate would already be visible. */
async function settled(outboxId: string): Promise<void> {
  await until(async () => (await outboxRow('id = $1', [outboxId]))?.status === 'sent');
  await rig.env.client.workflow.getHandle(deliverMailWorkflowId(outboxId)).result();
}

const bySubject = (subject: string) => (m: ReceivedMail) => m.subject === subject;

function sync() {
  return rig.env.client.workflow.execute<typeof layerSync>('layerSync', {
    taskQueue: TaskQueue.store,
    workflowId: jobWorkflowId('layer-sync', `${siruta}-notify-test`),
    args: [{ siruta, layerId: 'TERENURI_ACTIVE', trigger: 'manual' }],
  });
}

beforeAll(async () => {
  rig = await startSyncRig();
  mail = await TestMailDev.create();
  const w = await createQueueWorkers({
    connection: rig.env.nativeConnection,
    namespace: namespaceOf(rig.env),
    deps: { store: rig.store, smtp: { host: '127.0.0.1', port: mail.smtpPort } },
    queues: [TaskQueue.notifications],
  });
  notifWorker = w.get(TaskQueue.notifications)!;
  notifRun = notifWorker.run();
  // Deliveries started by notify() in this process run in this file's namespace, on its workers.
  deliver = mailDelivery;
  services = processServices(rig.store, { mail: deliver });
  ({ server, base } = await listenApp(createApp({ store })));
  dan = await createTestSessionRecord({ email: danEmail, name: 'Dan Ștefănescu', company: 'U', db: rig.db });
  mihai = await createTestSessionRecord({ email: mihaiEmail, name: 'Mihai Țurcanu', company: 'G', db: rig.db });
  elena = await createTestSessionRecord({ email: 'elena@birou.ro', company: 'B', db: rig.db });
}, 180_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  const users = [dan?.data.user.id, mihai?.data.user.id, elena?.data.user.id].filter(Boolean);
  await Promise.allSettled([dan?.end(), mihai?.end(), elena?.end()]);
  if (rig) {
    await rig.db.query(`DELETE FROM notifications WHERE user_id = ANY($1)`, [users]);
    await rig.db.query(`DELETE FROM notification_preferences WHERE user_id = ANY($1)`, [users]);
    await rig.db.query(`DELETE FROM watchlist WHERE user_id = ANY($1)`, [users]);
    await rig.db.query(`DELETE FROM app_users WHERE id = ANY($1)`, [users]);
    await rig.db.query(`DELETE FROM registry_entries WHERE id = ANY($1::uuid[])`, [registryIds]);
    await rig.db.query(`DELETE FROM cf_extracts WHERE id = ANY($1::uuid[])`, [cfIds]);
    if (siruta) {
      await rig.db.query(`DELETE FROM feature_changes WHERE siruta = $1`, [siruta]);
      await forgetUat(rig.db, siruta);
    }
  }
  notifWorker?.shutdown();
  await notifRun?.catch(() => undefined);
  await rig?.stop();
  await mail?.close();
  await closeTemporalClient();
  await disconnectPrisma();
  await store.close();
  await closePool();
}, 60_000);

describe('preferences and the in-app inbox', () => {
  test('preferences start all on, change per key and reject unknown or non-boolean values', async () => {
    const first = await api('GET', '/api/notifications/preferences');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      statusChange: true, countySyncDone: true, registryDeadline: true, weekendSyncFailed: true,
      cfExtractReady: true, exportReady: true, watchChange: true, backupFailed: true, dailyDigest: true, instantEmail: true,
    });
    const put = await api('PUT', '/api/notifications/preferences', { body: { exportReady: false, 'county-sync-done': false } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ exportReady: false, countySyncDone: false, statusChange: true });
    expect((await api('GET', '/api/notifications/preferences')).body).toMatchObject({ exportReady: false, countySyncDone: false });
    const bad = await api('PUT', '/api/notifications/preferences', { body: { exportReady: 'da' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('bad_request');
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['exportReady']);
    const unknown = await api('PUT', '/api/notifications/preferences', { body: { nonsense: true } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ field: 'nonsense', problem: 'Preferință necunoscută.' }]);
    expect((await api('GET', '/api/notifications/preferences', { who: null })).status).toBe(401);
    await api('PUT', '/api/notifications/preferences', { body: { exportReady: true, countySyncDone: true } });
  });

  test('a type turned off writes nothing; the inbox lists items with the unread count and marks them read', async () => {
    await api('PUT', '/api/notifications/preferences', { body: { exportReady: false, instantEmail: false, dailyDigest: false } });
    const off = await notify(rig.db, deliver, { userId: dan.data.user.id, type: 'export-ready', title: 'Export gata', body: 'x', idempotencyKey: `t-off-${tag}` });
    expect(off.created).toBe(false);
    const ids: string[] = [];
    for (const i of [1, 2, 3]) {
      const r = await notify(rig.db, deliver, { userId: dan.data.user.id, type: 'cf-extract-ready', title: `Extras CF ${i} gata`, body: 'Documentul poate fi descărcat.', link: `/extrase-cf?id=${i}`, idempotencyKey: `t-inbox-${tag}-${i}` });
      expect(r).toMatchObject({ created: true, email: null });
      ids.push(r.id!);
    }
    const list = await api('GET', '/api/notifications/app');
    expect(list.status).toBe(200);
    expect(list.body.unreadCount).toBe(3);
    expect(list.body.items.map((n: { title: string }) => n.title)).toEqual(['Extras CF 3 gata', 'Extras CF 2 gata', 'Extras CF 1 gata']);
    expect(list.body.items[0]).toMatchObject({ id: ids[2], userId: dan.data.user.id, type: 'cf-extract-ready', link: '/extrase-cf?id=3' });
    expect(list.body.items[0].readAt).toBeUndefined();
    const one = await api('PATCH', '/api/notifications/app', { body: { ids: [ids[0]] } });
    expect(one.body).toEqual({ updated: 1, unreadCount: 2 });
    // Someone else's notification is not theirs to mark.
    expect((await api('PATCH', '/api/notifications/app', { body: { ids: [ids[1]] }, who: mihai })).body).toMatchObject({ updated: 0 });
    expect((await api('PATCH', '/api/notifications/app', { body: { all: true } })).body).toEqual({ updated: 2, unreadCount: 0 });
    expect((await api('PATCH', '/api/notifications/app', { body: { ids: ['nu-e-uuid'] } })).status).toBe(400);
    expect((await api('GET', '/api/notifications/app?unread=true')).body).toEqual({ items: [], unreadCount: 0 });
    await rig.db.query(`DELETE FROM notifications WHERE user_id = $1`, [dan.data.user.id]);
    await api('PUT', '/api/notifications/preferences', { body: { exportReady: true, instantEmail: true, dailyDigest: true } });
  });
});

describe('instant e-mails', () => {
  test('a status change mails once although the notify activity and the delivery ran twice', async () => {
    const activities = createNotificationActivities(services);
    const input = {
      userId: dan.data.user.id,
      type: 'status-change' as const,
      title: 'Starea cererii B-2026-00042 s-a schimbat: aprobat',
      body: 'Primăria a aprobat cererea; documentul poate fi ridicat.',
      link: '/registratura?id=42',
      idempotencyKey: `status-change:${tag}:42:aprobat`,
    };
    // Run as the worker runs it, in an activity's context (it heartbeats while it runs).
    const env = new MockActivityEnvironment();
    const notifyOnce = (): Promise<NotifyResult> => env.run(activities.notify, input);
    const first = await notifyOnce();
    // The retry Temporal makes when a completion is lost: same input, same key.
    const retry = await notifyOnce();
    expect(first).toMatchObject({ created: true, email: 'instant' });
    expect(retry.created).toBe(false);
    const row = await outboxRow('idempotency_key = $1', [`notification:${input.idempotencyKey}`]);
    await settled(row.id);
    // A delivery started again for the same row (a sweep, an operator) finds it sent.
    const again = await rig.env.client.workflow.execute('deliverMail', { taskQueue: TaskQueue.store, workflowId: `${deliverMailWorkflowId(row.id)}-again`, args: [row.id] });
    expect(again).toEqual({ outcome: 'already-sent' });
    const got = await mail.mailsTo(danEmail);
    const mine = got.filter(bySubject(input.title));
    expect(mine).toHaveLength(1);
    expect(mine[0].to.map((t) => t.address)).toEqual([danEmail]);
    expect(mine[0].html).toContain('Primăria a aprobat cererea; documentul poate fi ridicat.');
    expect(mine[0].html).toContain(`href="${PUBLIC}/registratura?id=42"`);
    expect(mine[0].text).toContain('Primăria a aprobat cererea');
    expect(mine[0].text).toContain(`${PUBLIC}/registratura?id=42`);
    const inbox = await api('GET', '/api/notifications/app');
    expect(inbox.body.items.filter((n: { type: string }) => n.type === 'status-change')).toHaveLength(1);
  });

  test('SMTP down: the delivery is retried and the mail arrives once when the server is back', async () => {
    await mail.stop();
    const title = `Pas eșuat în sincronizarea de weekend (${tag})`;
    const r = await notify(rig.db, deliver, { userId: dan.data.user.id, type: 'weekend-sync-failed', title, body: 'Pasul „sync_cladiri” pentru Târgu Secuiesc a eșuat.', link: '/parcel-sync', idempotencyKey: `weekend-failed:${tag}` });
    expect(r.email).toBe('instant');
    const row = await outboxRow('idempotency_key = $1', [`notification:weekend-failed:${tag}`]);
    // At least two refused attempts while the server is down; nothing marked sent.
    const failing = await until(async () => {
      const o = await outboxRow('id = $1', [row.id]);
      return o.attempts >= 2 && o.last_error ? o : null;
    });
    expect(failing.status).toBe('pending');
    await mail.start();
    await settled(row.id);
    const got = (await mail.mailsTo(danEmail)).filter(bySubject(title));
    expect(got).toHaveLength(1);
    expect(got[0].html).toContain('Pasul „sync_cladiri” pentru Târgu Secuiesc a eșuat.');
    // Every attempt heartbeats: one taken by a worker that then died is sent again after 20 s, not a minute.
    expect(await heartbeatsOf(rig.env.client, deliverMailWorkflowId(row.id))).toEqual({ sendOutboxMail: 20_000 });
  });

  test('a mail whose delivery start was lost goes out with the outbox sweep', async () => {
    // No delivery start: as if the process died between queueing and starting the delivery.
    const title = `Extrasul CF 50999 este gata (${tag})`;
    await notify(rig.db, null, { userId: dan.data.user.id, type: 'cf-extract-ready', title, body: 'Documentul poate fi descărcat.', idempotencyKey: `lost-start:${tag}` });
    const row = await outboxRow('idempotency_key = $1', [`notification:lost-start:${tag}`]);
    expect(row).toMatchObject({ status: 'pending', attempts: 0 });
    await rig.db.query(`UPDATE mail_outbox SET created_at = now() - interval '5 minutes' WHERE id = $1`, [row.id]);
    const swept = await rig.env.client.workflow.execute('mailOutboxSweep', { taskQueue: TaskQueue.store, workflowId: `mail-outbox-sweep-test-${tag}`, args: [] });
    expect((swept as { restarted: number }).restarted).toBeGreaterThanOrEqual(1);
    expect(await heartbeatsOf(rig.env.client, `mail-outbox-sweep-test-${tag}`)).toEqual({ restartStaleMail: 20_000 });
    await settled(row.id);
    expect((await mail.mailsTo(danEmail)).filter(bySubject(title))).toHaveLength(1);
  });

  test('preferences decide the channel: digest-only holds the mail, critical is never held, a report goes to the admins', async () => {
    await api('PUT', '/api/notifications/preferences', { body: { instantEmail: false } });
    const held = await notify(rig.db, deliver, { userId: dan.data.user.id, type: 'export-ready', title: `Exportul UAT-ului Întorsura Buzăului e gata (${tag})`, body: 'Arhiva poate fi descărcată.', link: '/parcel-sync/export', idempotencyKey: `export:${tag}` });
    expect(held.email).toBe('digest');
    const critical = await notify(rig.db, deliver, { userId: dan.data.user.id, type: 'weekend-sync-failed', title: `Eroare critică (${tag})`, body: 'Sesiunea de weekend s-a oprit.', idempotencyKey: `critical:${tag}`, critical: true });
    expect(critical.email).toBe('instant');
    const criticalRow = await outboxRow('idempotency_key = $1', [`notification:critical:${tag}`]);
    await settled(criticalRow.id);
    expect((await mail.mailsTo(danEmail)).filter(bySubject(`Eroare critică (${tag})`))).toHaveLength(1);
    // Nothing was queued for the held one.
    expect(await outboxRow('idempotency_key = $1', [`notification:export:${tag}`])).toBeUndefined();
    await rig.db.query(`UPDATE app_users SET is_admin = true WHERE id = $1`, [mihai.data.user.id]);
    const report = await mailReport(rig.db, deliver, { to: [mihai.data.user.id], subject: `Raport sesiune weekend (${tag})`, text: 'Sesiunea s-a încheiat.\n\n3 orașe sincronizate, 1 pas eșuat.', idempotencyKey: `weekend-session:${tag}` });
    const reportAgain = await mailReport(rig.db, deliver, { to: [mihai.data.user.id], subject: `Raport sesiune weekend (${tag})`, text: 'Sesiunea s-a încheiat.', idempotencyKey: `weekend-session:${tag}` });
    expect(reportAgain.outboxId).toBe(report.outboxId);
    await settled(report.outboxId!);
    const got = (await mail.mailsTo(mihaiEmail)).filter(bySubject(`Raport sesiune weekend (${tag})`));
    expect(got).toHaveLength(1);
    expect(got[0].text).toContain('3 orașe sincronizate, 1 pas eșuat.');
    await api('PUT', '/api/notifications/preferences', { body: { instantEmail: true } });
  });
});

describe('the daily digest', () => {
  beforeAll(async () => {
    const today = bucharestDate(new Date());
    const reg = await rig.db.query<{ id: string }>(
      `INSERT INTO registry_entries (number, company, year, sequence, direction, subject, deadline)
       VALUES ($1, 'U', 2026, 90001, 'intrare', 'Certificat de urbanism — răspuns', $3::date + 1),
              ($2, 'B', 2026, 90002, 'iesire', 'Adresă către Oficiul de Cadastru', $3::date),
              ($4, 'U', 2026, 90003, 'intrare', 'Termen depășit demult', $3::date - 30)
       RETURNING id`,
      [`U-2026-9${regNo}`, `B-2026-9${regNo}`, today, `U-2026-8${regNo}`],
    );
    registryIds.push(...reg.rows.map((r) => r.id));
    const cf = await rig.db.query<{ id: string }>(
      `INSERT INTO cf_extracts (user_id, nr_cadastral, siruta, status, issued_at, expires_at)
       VALUES ($1, '50123', 14001, 'completed', now() - interval '27 days', now() + interval '3 days') RETURNING id`,
      [dan.data.user.id],
    );
    cfIds.push(cf.rows[0].id);
  });

  test('each user gets what concerns them, held notifications included, once a day; company G sees every company', async () => {
    const now = new Date();
    const r = await services.notifications.runDailyDigest({ now, userIds: [dan.data.user.id, mihai.data.user.id] });
    expect(r.sent).toBe(2);
    await Promise.all(r.outboxIds.map(settled));
    const [danMail] = (await mail.mailsTo(danEmail)).filter((m) => m.subject.startsWith('Rezumatul zilei'));
    expect(danMail.html).toContain('Termene în registratură');
    expect(danMail.html).toContain('Certificat de urbanism — răspuns');
    expect(danMail.html).not.toContain('Adresă către Oficiul de Cadastru'); // company B's entry
    expect(danMail.html).not.toContain('Termen depășit demult');
    expect(danMail.html).toContain('Extrase CF care expiră în 7 zile');
    expect(danMail.html).toContain('50123');
    expect(danMail.html).toContain(`href="${PUBLIC}/extrase-cf?id=${cfIds[0]}"`);
    expect(danMail.html).toContain(`Exportul UAT-ului Întorsura Buzăului e gata (${tag})`); // held for the digest
    expect(danMail.text).toContain('Certificat de urbanism — răspuns');
    expect(danMail.text).toContain('Bună dimineața, Dan Ștefănescu!');
    const [mihaiMail] = (await mail.mailsTo(mihaiEmail)).filter((m) => m.subject.startsWith('Rezumatul zilei'));
    expect(mihaiMail.html).toContain('Certificat de urbanism — răspuns');
    expect(mihaiMail.html).toContain('Adresă către Oficiul de Cadastru');
    expect(mihaiMail.html).not.toContain('50123'); // dan's extract
    // The same day again: nobody gets a second digest; the held item went out once.
    const again = await services.notifications.runDailyDigest({ now, userIds: [dan.data.user.id, mihai.data.user.id] });
    expect(again.sent).toBe(0);
    const held = await rig.db.query(`SELECT emailed_at FROM notifications WHERE idempotency_key = $1`, [`export:${tag}`]);
    expect(held.rows[0].emailed_at).not.toBeNull();
    expect((await mail.mailsTo(danEmail)).filter((m) => m.subject.startsWith('Rezumatul zilei'))).toHaveLength(1);
  });

  test('nothing to say or the digest off: no mail', async () => {
    const tomorrow = new Date(Date.now() + 26 * 3600_000);
    await api('PUT', '/api/notifications/preferences', { who: mihai, body: { dailyDigest: false } });
    // elena has nothing due and nothing held; mihai turned the digest off.
    const r = await services.notifications.runDailyDigest({ now: tomorrow, userIds: [elena.data.user.id, mihai.data.user.id] });
    expect(r).toMatchObject({ considered: 2, sent: 0, skipped: 2 });
    await api('PUT', '/api/notifications/preferences', { who: mihai, body: { dailyDigest: true } });
  });

  test('POST /api/notifications/digest: test=true mails the signed-in caller only; the cron run needs the bearer token', async () => {
    const before = (await mail.mailsTo(mihaiEmail)).length;
    const r = await api('POST', '/api/notifications/digest?test=true', { who: mihai });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ test: true, to: mihaiEmail });
    const [m] = await mail.waitForMails((x) => x.subject.startsWith('[Test] Rezumatul zilei') && x.to.some((t) => t.address === mihaiEmail));
    expect(m.to.map((t) => t.address)).toEqual([mihaiEmail]);
    expect(m.html).toContain('Acesta este un rezumat de test, trimis doar către adresa dumneavoastră.');
    expect(m.html).toContain('Adresă către Oficiul de Cadastru');
    expect(m.text).toContain('rezumat de test');
    // Only that one mail went out to the caller (and it went to nobody else: one recipient).
    await settled((await outboxRow(`kind = 'test-digest' AND $1 = ANY(user_ids)`, [mihai.data.user.id])).id);
    expect((await mail.mailsTo(mihaiEmail)).length).toBe(before + 1);
    expect((await api('POST', '/api/notifications/digest?test=true', { who: null })).status).toBe(401);
    expect((await api('POST', '/api/notifications/digest', { who: null })).status).toBe(401);
    expect((await api('POST', '/api/notifications/digest', { who: dan })).status).toBe(401);
    expect((await api('POST', '/api/notifications/digest', { who: null, bearer: 'wrong' })).status).toBe(401);
    const cron = await api('POST', '/api/notifications/digest', { who: null, bearer: config.tokens.cronSecret });
    expect(cron.status).toBe(202);
    expect(cron.body).toMatchObject({ test: false, date: bucharestDate(new Date()) });
    // The cron's test run (spec 4.5: the bearer token is this route's authentication): each
    // administrator (mihai) gets a test digest; an ordinary user (dan) none.
    const testPick = (address: string) => (x: ReceivedMail) => x.subject.startsWith('[Test] Rezumatul zilei') && x.to.some((t) => t.address === address);
    const danTests = (await mail.mails()).filter(testPick(danEmail)).length;
    expect((await api('POST', '/api/notifications/digest?test=true', { who: null, bearer: 'wrong' })).status).toBe(401);
    const cronTest = await api('POST', '/api/notifications/digest?test=true', { who: null, bearer: config.tokens.cronSecret });
    expect(cronTest.status).toBe(202);
    expect(cronTest.body.test).toBe(true);
    expect(cronTest.body.to.split(', ')).toContain(mihaiEmail);
    expect(cronTest.body.to.split(', ')).not.toContain(danEmail);
    await mail.waitForMails(testPick(mihaiEmail), 2);
    expect((await mail.mails()).filter(testPick(danEmail)).length).toBe(danTests);
  });

  test('the 07:00 Europe/Bucharest schedule on the dev server fires at 07:00 local time, across DST', async () => {
    const client = await getTemporalClient();
    const decl = schedules.find((s) => s.workflowType === 'dailyDigest')!;
    // Registered as the workers do at start, in this file's namespace.
    await ensureSchedules(client, [decl]);
    const d = await client.schedule.getHandle(decl.id).describe();
    expect(d.spec.timezone).toBe(SCHEDULE_TIME_ZONE);
    const local = (t: Date) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Bucharest', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(t);
    expect(d.info.nextActionTimes.length).toBeGreaterThan(0);
    for (const t of d.info.nextActionTimes) expect(local(t)).toBe('07:00');
    // The same spec over the spring-forward night of 2027 (28 March): 05:00 UTC, then 04:00 UTC.
    const id = `daily-digest-dst-check:${tag}`;
    const handle = await client.schedule.create({
      scheduleId: id,
      spec: { calendars: decl.calendars, timezone: SCHEDULE_TIME_ZONE, startAt: new Date('2027-03-26T00:00:00Z'), endAt: new Date('2027-03-31T00:00:00Z') },
      action: { type: 'startWorkflow', workflowType: 'dailyDigest', taskQueue: TaskQueue.store, args: [] },
      state: { paused: true },
    });
    try {
      const times = (await handle.describe()).info.nextActionTimes.map((t) => t.toISOString());
      expect(times.slice(0, 4)).toEqual(['2027-03-26T05:00:00.000Z', '2027-03-27T05:00:00.000Z', '2027-03-28T04:00:00.000Z', '2027-03-29T04:00:00.000Z']);
    } finally {
      await handle.delete();
      await client.schedule.getHandle(decl.id).delete();
    }
  });
});

describe('watchlist', () => {
  let followed: { featureId: string; objectId: number; ref: string };

  beforeAll(async () => {
    // Brăila (workspace 92), the fifth-smallest UAT: this file's own data.
    const uat = await pickUat(rig, 92, 4);
    siruta = uat.siruta;
    await forgetUat(rig.db, siruta);
    // The catalogue row a UAT follow needs (the catalogue refresh is not part of this file).
    await rig.db.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Brăila', 92) ON CONFLICT (siruta) DO NOTHING`, [siruta, uat.name]);
    const run = await sync();
    expect(run.status).toBe('done');
  }, 120_000);

  test('follow a parcel and a UAT; list; refuse unknown ones; unfollow', async () => {
    const f = await rig.db.query<{ id: string; object_id: string; cadastral_ref: string }>(
      `SELECT id, object_id, cadastral_ref FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND cadastral_ref IS NOT NULL ORDER BY object_id LIMIT 1`,
      [siruta],
    );
    const created = await api('POST', '/api/watchlist', { body: { featureId: f.rows[0].id } });
    expect(created.status).toBe(201);
    expect(created.body.item).toMatchObject({ kind: 'parcel', siruta, featureId: f.rows[0].id });
    expect(created.body.item.label).toContain(f.rows[0].cadastral_ref);
    expect((await api('POST', '/api/watchlist', { body: { featureId: f.rows[0].id } })).status).toBe(200);
    const uat = await api('POST', '/api/watchlist', { body: { siruta }, who: mihai });
    expect(uat.status).toBe(201);
    expect(uat.body.item).toMatchObject({ kind: 'uat', siruta });
    expect((await api('POST', '/api/watchlist', { body: { featureId: randomUUID() } })).status).toBe(404);
    expect((await api('POST', '/api/watchlist', { body: { nimic: 1 } })).status).toBe(400);
    const list = await api('GET', '/api/watchlist');
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([created.body.item.id]);
    // Not theirs to delete.
    expect((await api('DELETE', `/api/watchlist/${created.body.item.id}`, { who: mihai })).status).toBe(404);
    expect((await api('DELETE', `/api/watchlist/${created.body.item.id}`)).status).toBe(204);
    expect((await api('GET', '/api/watchlist')).body.items).toEqual([]);
  });

  test('a double click follows once; past the cap a follow is a 409 that says why, and an existing one still answers', async () => {
    const f = await rig.db.query<{ id: string }>(
      `SELECT id FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' ORDER BY object_id LIMIT 2`,
      [siruta],
    );
    const [first, second] = f.rows.map((r) => r.id);
    try {
      const clicks = await Promise.all([1, 2, 3].map(() => api('POST', '/api/watchlist', { body: { featureId: first }, who: elena })));
      expect(clicks.map((c) => c.status).sort()).toEqual([200, 200, 201]);
      expect(new Set(clicks.map((c) => c.body.item.id)).size).toBe(1);
      // Elena follows the cap's worth (the rest planted as UAT follows).
      await rig.db.query(
        `INSERT INTO watchlist (user_id, kind, siruta, label) SELECT $1, 'uat', 7400000 + k, 'UAT plantat ' || k FROM generate_series(1, $2) k`,
        [elena.data.user.id, MAX_WATCHES_PER_USER - 1],
      );
      const refused = await api('POST', '/api/watchlist', { body: { featureId: second }, who: elena });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: 'too_many_watches', message: expect.stringContaining('Urmăriți deja 1.000 de parcele și UAT-uri') });
      expect((await api('POST', '/api/watchlist', { body: { featureId: first }, who: elena })).status).toBe(200);
      expect((await api('GET', '/api/watchlist', { who: elena })).body.items).toHaveLength(MAX_WATCHES_PER_USER);
    } finally {
      await rig.db.query(`DELETE FROM watchlist WHERE user_id = $1`, [elena.data.user.id]);
    }
  });

  test('a followed parcel removed at the portal and re-synced: one watch-change notification and a history entry', async () => {
    const mutated = await rig.simJson<{ removed: number[] }>('POST', '/__sim/mutate', { siruta, layerId: 'TERENURI_ACTIVE', remove: 1 });
    const objectId = mutated.removed[0];
    const f = await rig.db.query<{ id: string; cadastral_ref: string }>(`SELECT id, cadastral_ref FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND object_id = $2`, [siruta, objectId]);
    followed = { featureId: f.rows[0].id, objectId, ref: f.rows[0].cadastral_ref };
    expect((await api('POST', '/api/watchlist', { body: { featureId: followed.featureId } })).status).toBe(201);
    const run = await sync();
    expect(run.removed).toBe(1);
    const inbox = await api('GET', '/api/notifications/app');
    const changes = inbox.body.items.filter((n: { type: string }) => n.type === 'watch-change');
    expect(changes).toHaveLength(1);
    expect(changes[0].title).toContain(`Parcela ${followed.ref}`);
    expect(changes[0].body).toContain('parcela a fost eliminată din registru');
    expect(changes[0].link).toBe(`/geoportal?feature=${followed.featureId}`);
    const history = await api('GET', `/api/geoportal/feature-history?id=${followed.featureId}`);
    expect(history.body.items).toEqual([{ at: expect.any(String), field: 'ELIMINATA', before: 'activă', after: 'eliminată', syncRunId: run.id, source: 'sync', jobId: null }]);
    // mihai follows the whole UAT: one summary notification for the run.
    const uatNote = (await api('GET', '/api/notifications/app', { who: mihai })).body.items.filter((n: { type: string }) => n.type === 'watch-change');
    expect(uatNote).toHaveLength(1);
    expect(uatNote[0].link).toBe(`/geoportal?siruta=${siruta}`);
    // The instant mail of dan's notification.
    const [m] = await mail.waitForMails((x) => x.subject === changes[0].title);
    expect(m.html).toContain(`href="${PUBLIC}/geoportal?feature=${followed.featureId}"`);
    // Syncing again changes nothing and notifies nobody.
    await sync();
    expect((await api('GET', '/api/notifications/app')).body.items.filter((n: { type: string }) => n.type === 'watch-change')).toHaveLength(1);
  }, 120_000);

  test('enrichment changes are history for any parcel; followers are told without values; restricted viewers see no personal values', async () => {
    const f = await rig.db.query<{ id: string }>(
      `SELECT id FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' ORDER BY object_id DESC LIMIT 1`,
      [siruta],
    );
    const id = f.rows[0].id;
    const e = (owners: string, address: string) => ({ PROPRIETARI: owners, NR_CF: '50123', ADRESA: address, CATEGORIE: 'A:1200' }) as never;
    // The first enrichment is what is known, not a change; the second is history although nobody follows the parcel.
    await writeEnrichment(rig.db, deliver, id, e('POPESCU ION (1/1)', 'Str. Morii nr. 1'), new Date());
    await writeEnrichment(rig.db, deliver, id, e('POPA ANA (1/1)', 'Str. Morii nr. 1'), new Date(), 'enrich:test:1');
    const unfollowed = await api('GET', `/api/geoportal/feature-history?id=${id}`);
    expect(unfollowed.body.items).toEqual([
      { at: expect.any(String), field: 'PROPRIETARI', before: 'POPESCU ION (1/1)', after: 'POPA ANA (1/1)', syncRunId: null, source: 'enrichment', jobId: 'enrich:test:1' },
    ]);
    const mine = (who?: typeof elena) => api('GET', '/api/notifications/app', who ? { who } : {});
    const parcelNotes = async () =>
      (await mine()).body.items.filter((n: { type: string; link: string }) => n.type === 'watch-change' && n.link === `/geoportal?feature=${id}`);
    expect(await parcelNotes()).toHaveLength(0);

    expect((await api('POST', '/api/watchlist', { body: { featureId: id } })).status).toBe(201);
    await writeEnrichment(rig.db, deliver, id, e('IONESCU ȘTEFANIA (1/2); IONESCU ȚEPEȘ (1/2)', 'Str. Gării nr. 7'), new Date());
    const full = await api('GET', `/api/geoportal/feature-history?id=${id}`);
    expect(full.body.items.slice(0, 2)).toEqual([
      { at: expect.any(String), field: 'ADRESA', before: 'Str. Morii nr. 1', after: 'Str. Gării nr. 7', syncRunId: null, source: 'enrichment', jobId: null },
      { at: expect.any(String), field: 'PROPRIETARI', before: 'POPA ANA (1/1)', after: 'IONESCU ȘTEFANIA (1/2); IONESCU ȚEPEȘ (1/2)', syncRunId: null, source: 'enrichment', jobId: null },
    ]);
    expect(full.body.items).toHaveLength(3);
    // The viewer rule: owners and address nulled for a user without the personal-data right.
    const restricted = await api('GET', `/api/geoportal/feature-history?id=${id}`, { who: elena });
    expect(restricted.body.items.map((h: { field: string; before: unknown; after: unknown }) => [h.field, h.before, h.after])).toEqual([
      ['ADRESA', null, null],
      ['PROPRIETARI', null, null],
      ['PROPRIETARI', null, null],
    ]);
    const notes = await parcelNotes();
    expect(notes).toHaveLength(1);
    expect(notes[0].body).toBe('Modificări: proprietari, adresă.');
    expect(notes[0].body).not.toContain('IONESCU');
  });
});
