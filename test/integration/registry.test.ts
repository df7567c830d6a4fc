/**
 * Registry (registratura) end to end: the real app (createApp) over real PostgreSQL, MinIO and
 * Temporal (workers of this run on their own queues), and the status authority simulator
 * in-process. Isolation by data: this file owns registry years 2030-2049; every test uses its
 * own year, so nothing here depends on what other suites or earlier runs left.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../../api/app';
import { createStore } from '../../domain/db/store';
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { disconnectPrisma } from '../../domain/db/prisma';
import { dueRegistryEntries } from '../../domain/registry/due';
import { s3 } from '../../domain/storage/s3';
import { closeTemporalClient } from '../../temporal/client';
import { TaskQueue, type TaskQueueName } from '../../temporal/common/queues';
import { createQueueWorkers } from '../../workers/start';
import { startStatusAuthoritySimulator, type StatusAuthoritySimulator } from '../../simulators/statusAuthority/server';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { localEnv, namespaceOf } from '../helpers/temporal';
import { listenApp } from '../helpers/appServer';

const store = createStore();

let server: http.Server;
let base: string;
let sim: StatusAuthoritySimulator;
let env: TestWorkflowEnvironment;
let workers: Map<TaskQueueName, Worker>;
let runs: Promise<void>[];
let ana: TestSession; // admin, B
let dan: TestSession; // U
let mihai: TestSession; // G
let elena: TestSession; // B, basic panel
let bogdan: TestSession; // B, ordinary

const db = () => getPool();

async function call(method: string, p: string, opts: { body?: unknown; who?: TestSession; headers?: Record<string, string>; raw?: BodyInit } = {}) {
  const headers: Record<string, string> = { ...(opts.who ? { cookie: opts.who.cookie } : {}), ...(opts.headers ?? {}) };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  const text = await res.text();
  const parse = (): any => {
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      return text;
    }
  };
  const body = parse();
  return { status: res.status, body, headers: res.headers };
}

const create = (who: TestSession, body: Record<string, unknown>) => call('POST', '/api/registratura/entries', { who, body });

async function clearYear(year: number): Promise<void> {
  await db().query(`DELETE FROM registry_entries WHERE year = $1`, [year]);
  await db().query(`DELETE FROM registry_counters WHERE year = $1`, [year]);
}

async function counter(company: string, year: number): Promise<number | null> {
  const r = await db().query<{ value: number }>(`SELECT value FROM registry_counters WHERE type = 'SEQ' AND company = $1 AND year = $2`, [company, year]);
  return r.rows[0]?.value ?? null;
}

beforeAll(async () => {
  await db().query(`DELETE FROM registry_entries WHERE year BETWEEN 2030 AND 2049`);
  await db().query(`DELETE FROM registry_counters WHERE year BETWEEN 2030 AND 2049`);
  sim = await startStatusAuthoritySimulator({ port: 0, seed: 7 });
  env = await localEnv();
  workers = await createQueueWorkers({
    connection: env.nativeConnection,
    namespace: namespaceOf(env),
    deps: { store, statusAuthorityUrl: sim.url },
    queues: [TaskQueue.store, TaskQueue.notifications],
  });
  runs = [...workers.values()].map((w) => w.run());
  ({ server, base } = await listenApp(createApp({ store, outside: { statusAuthorityUrl: sim.url } })));
  ana = await createTestSessionRecord({ email: 'ana@birou.ro', name: 'Ana Admin', company: 'B', groups: ['admin'] });
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', name: 'Dan', company: 'U' });
  mihai = await createTestSessionRecord({ email: 'mihai@birou.ro', name: 'Mihai', company: 'G' });
  elena = await createTestSessionRecord({ email: 'elena@birou.ro', name: 'Elena', company: 'B' });
  bogdan = await createTestSessionRecord({ email: 'bogdan@birou.ro', name: 'Bogdan Birou', company: 'B' });
}, 120_000);

afterAll(async () => {
  for (const s of [ana, dan, mihai, elena, bogdan]) await s?.end();
  await new Promise((r) => server?.close(r));
  for (const w of workers?.values() ?? []) w.shutdown();
  await Promise.allSettled(runs ?? []);
  await env?.teardown();
  await sim?.close();
  await closeTemporalClient();
  await disconnectPrisma();
  await store.close();
  await closePool();
});

describe('numbering', () => {
  test('50 concurrent creates for one company and year get 50 distinct consecutive numbers', async () => {
    await clearYear(2030);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => create(bogdan, { direction: i % 2 ? 'iesire' : 'intrare', date: '2030-03-01', subject: `Adresa ${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    const numbers = answers.map((a) => a.body.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => `B-2030-${String(i + 1).padStart(5, '0')}`));
    expect(await counter('B', 2030)).toBe(50);
  });

  test('the entry a create answers is the entry stored, every field, also for a restricted viewer', async () => {
    await clearYear(2038);
    const full = {
      direction: 'iesire',
      date: '2038-12-31',
      subject: 'Răspuns la cererea nr. 7',
      sender: 'Popescu Ştefan',
      recipient: 'Primăria Brașov',
      documentType: 'adresă',
      notes: 'dosar țintă',
      deadline: '2039-01-15',
      assignee: 'Bogdan',
      tracking: { authority: 'Primăria Brașov', petitionerName: 'Popescu Ștefan', requestNumber: 'CU-2038/7' },
    };
    const made = await create(bogdan, full);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ ...full, number: 'B-2038-00001', company: 'B', year: 2038, sequence: 1, attachments: [], createdBy: bogdan.data.user.id });
    expect(made.body.tracking).toMatchObject({ status: null, statusClass: null, history: [], changeHash: null, lastCheckedAt: null });
    expect(made.body).toEqual((await call('GET', `/api/registratura/entries/${made.body.id}`, { who: bogdan })).body);

    const hidden = await create(elena, { direction: 'intrare', date: '2038-01-02', subject: 'Cerere', sender: 'Ionescu Ana' });
    expect(hidden.body).toMatchObject({ number: 'B-2038-00002', sender: null, restricted: true });
    expect(hidden.body).toEqual((await call('GET', `/api/registratura/entries/${hidden.body.id}`, { who: elena })).body);
    const history = await call('GET', `/api/registratura/entries/${made.body.id}/history`, { who: bogdan });
    expect(history.body.items).toEqual([
      expect.objectContaining({
        action: 'create',
        number: 'B-2038-00001',
        actorId: bogdan.data.user.id,
        changes: expect.arrayContaining([{ field: 'number', before: null, after: 'B-2038-00001' }, { field: 'deadline', before: null, after: '2039-01-15' }]),
      }),
    ]);
  });

  test('old-format and legacy numbers are counted when numbering, and debug-sequences converts them', async () => {
    await clearYear(2031);
    // Imported history: an old-format number and a legacy one, as the previous system wrote them.
    await db().query(
      `INSERT INTO registry_entries (number, company, year, sequence, direction, subject) VALUES
         ('BTG-2031-IN-00041', 'B', 0, 0, 'intrare', 'Import vechi'),
         ('45/2031', 'B', 0, 0, 'iesire', 'Import legacy'),
         ('URB-2031-OUT-00100', 'U', 0, 0, 'iesire', 'Altă firmă')`,
    );
    const r = await create(bogdan, { direction: 'intrare', date: '2031-05-02', subject: 'După import' });
    expect(r.status).toBe(201);
    expect(r.body.number).toBe('B-2031-00046');

    expect((await call('GET', '/api/registratura/debug-sequences', { who: bogdan })).status).toBe(403);
    const report = await call('GET', '/api/registratura/debug-sequences', { who: ana });
    expect(report.status).toBe(200);
    const b2031 = report.body.sequences.find((s: any) => s.company === 'B' && s.year === 2031);
    expect(b2031).toMatchObject({ actualMax: 46, counter: 46, consistent: true, formats: { current: 1, old: 1, legacy: 1 } });
    expect(b2031.samples.old).toEqual(['BTG-2031-IN-00041']);

    await db().query(`UPDATE registry_counters SET value = 7 WHERE company = 'B' AND year = 2031`);
    const fix = await call('POST', '/api/registratura/debug-sequences', { who: ana });
    expect(fix.status).toBe(200);
    expect(fix.body.converted).toEqual(expect.arrayContaining([
      expect.objectContaining({ from: 'BTG-2031-IN-00041', to: 'B-2031-00041' }),
      expect.objectContaining({ from: '45/2031', to: 'B-2031-00045' }),
      expect.objectContaining({ from: 'URB-2031-OUT-00100', to: 'U-2031-00100' }),
    ]));
    expect(await counter('B', 2031)).toBe(46);
    expect(await counter('U', 2031)).toBe(100);
  });

  test('only the last number of a company and year can be deleted; the counter follows', async () => {
    await clearYear(2032);
    const e1 = (await create(bogdan, { direction: 'intrare', date: '2032-01-10', subject: 'Unu' })).body;
    const e2 = (await create(bogdan, { direction: 'intrare', date: '2032-01-11', subject: 'Doi' })).body;
    const e3 = (await create(bogdan, { direction: 'iesire', date: '2032-01-12', subject: 'Trei' })).body;
    const refused = await call('DELETE', `/api/registratura/entries/${e2.id}`, { who: bogdan });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('not_last_number');
    expect(refused.body.message).toContain('B-2032-00003');
    expect(refused.body.message).toMatch(/nu poate fi șters/);
    const ok = await call('DELETE', `/api/registratura/entries/${e3.id}`, { who: bogdan });
    expect(ok).toMatchObject({ status: 200, body: { deleted: true, number: 'B-2032-00003' } });
    expect(await counter('B', 2032)).toBe(2);
    const next = await create(bogdan, { direction: 'intrare', date: '2032-02-01', subject: 'Patru' });
    expect(next.body.number).toBe('B-2032-00003');
    expect((await call('GET', `/api/registratura/entries/${e1.id}`, { who: bogdan })).status).toBe(200);
    // The deleted entry's trail survives for an admin.
    const trail = await call('GET', `/api/registratura/entries/${e3.id}/history`, { who: ana });
    expect(trail.body.items.map((h: any) => h.action)).toEqual(['create', 'delete']);
  });

  test('a change of company allocates a new number and recalculates the old company’s counter', async () => {
    await clearYear(2033);
    await create(ana, { company: 'U', direction: 'intrare', date: '2033-01-05', subject: 'U existent' });
    await create(ana, { direction: 'intrare', date: '2033-01-05', subject: 'B unu' });
    const moved = (await create(ana, { direction: 'intrare', date: '2033-01-06', subject: 'B doi' })).body;
    expect(moved.number).toBe('B-2033-00002');
    const r = await call('PUT', `/api/registratura/entries/${moved.id}`, { who: ana, body: { company: 'U' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ number: 'U-2033-00002', company: 'U', sequence: 2 });
    expect(await counter('B', 2033)).toBe(1);
    expect(await counter('U', 2033)).toBe(2);
    // A direction change alone also renumbers (spec 4.5 rule 2).
    const d = await call('PUT', `/api/registratura/entries/${moved.id}`, { who: ana, body: { direction: 'iesire' } });
    expect(d.body.number).toBe('U-2033-00003');
    expect(await counter('U', 2033)).toBe(3);
    const h = await call('GET', `/api/registratura/entries/${moved.id}/history`, { who: ana });
    expect(h.body.items.map((x: any) => x.action)).toEqual(['create', 'renumber', 'renumber']);
    expect(h.body.items[1].changes).toEqual(expect.arrayContaining([{ field: 'number', before: 'B-2033-00002', after: 'U-2033-00002' }]));
    expect(h.body.items[1].actorName).toBe('Ana Admin');
  });
});

describe('access, validation, search', () => {
  let bEntry: any;
  beforeAll(async () => {
    await clearYear(2034);
    bEntry = (await create(bogdan, { direction: 'intrare', date: '2034-04-01', subject: 'Cerere Ștefan', sender: 'Popescu Ştefan', recipient: 'Primăria Brașov', notes: 'dosar țintă' })).body;
  });

  test('another company’s entry does not exist for the caller; the group company reads all', async () => {
    expect((await call('GET', `/api/registratura/entries/${bEntry.id}`, { who: dan })).status).toBe(404);
    expect((await call('PUT', `/api/registratura/entries/${bEntry.id}`, { who: dan, body: { subject: 'x' } })).status).toBe(404);
    expect((await call('DELETE', `/api/registratura/entries/${bEntry.id}`, { who: dan })).status).toBe(404);
    const list = await call('GET', '/api/registratura/entries?year=2034', { who: dan });
    expect(list.body.items).toEqual([]);
    expect((await call('GET', `/api/registratura/entries/${bEntry.id}`, { who: mihai })).body.number).toBe('B-2034-00001');
    expect((await call('PUT', `/api/registratura/entries/${bEntry.id}`, { who: mihai, body: { subject: 'x' } })).status).toBe(403);
    expect((await create(dan, { company: 'B', direction: 'intrare', date: '2034-04-02', subject: 'x' })).status).toBe(403);
  });

  test('bad bodies answer 400 with details', async () => {
    const r = await create(bogdan, { direction: 'sus', date: '2034-02-30', subject: '', extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('bad_request');
    const fields = r.body.details.map((d: any) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['direction', 'date', 'subject']));
    expect((await call('GET', '/api/registratura/entries?pageSize=5000', { who: bogdan })).status).toBe(400);
    expect((await call('GET', '/api/registratura/entries/nu-e-uuid', { who: bogdan })).status).toBe(400);
  });

  test('q ignores case and diacritics in both ş/ș spellings', async () => {
    for (const q of ['stefan', 'ȘTEFAN', 'ştefan', 'brasov', 'tinta', 'B-2034-00001']) {
      const r = await call('GET', `/api/registratura/entries?year=2034&q=${encodeURIComponent(q)}`, { who: bogdan });
      expect([q, r.body.total]).toEqual([q, 1]);
    }
  });

  test('basic-panel users see no sender, recipient or petitioner and cannot search by them', async () => {
    const r = await call('GET', `/api/registratura/entries/${bEntry.id}`, { who: elena });
    expect(r.body).toMatchObject({ sender: null, recipient: null, restricted: true, subject: 'Cerere Ștefan' });
    const byName = await call('GET', `/api/registratura/entries?year=2034&q=popescu`, { who: elena });
    expect(byName.body.total).toBe(0);
    expect((await call('GET', `/api/registratura/entries?year=2034&q=popescu`, { who: bogdan })).body.total).toBe(1);
  });

  test('deadlines feed dueRegistryEntries for the digest', async () => {
    await call('PUT', `/api/registratura/entries/${bEntry.id}`, { who: bogdan, body: { deadline: '2034-04-10', assignee: 'Bogdan' } });
    expect(await dueRegistryEntries(db(), { from: '2034-04-09', to: '2034-04-12', companies: ['B'] })).toEqual([
      expect.objectContaining({ number: 'B-2034-00001', deadline: '2034-04-10', assignee: 'Bogdan' }),
    ]);
    expect(await dueRegistryEntries(db(), { from: '2034-04-09', to: '2034-04-12', companies: ['U'] })).toEqual([]);
  });
});

describe('attachments', () => {
  test('upload, download under the original name, delete with the entry', async () => {
    await clearYear(2035);
    const e = (await create(bogdan, { direction: 'intrare', date: '2035-01-01', subject: 'Cu atașament' })).body;
    const bytes = randomBytes(300_000);
    const name = 'Cerere ștampilată "final".pdf';
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
    const up = await call('POST', `/api/registratura/entries/${e.id}/attachments`, { who: bogdan, raw: form });
    expect(up.status).toBe(201);
    const att = up.body.attachments[0];
    expect(att).toMatchObject({ name, size: bytes.length, mimeType: 'application/pdf' });
    const dl = await fetch(`${base}/api/registratura/entries/${e.id}/attachments/${att.id}`, { headers: { cookie: bogdan.cookie } });
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
    const cd = dl.headers.get('content-disposition')!;
    expect(decodeURIComponent(/filename\*=UTF-8''([^;]+)/.exec(cd)![1])).toBe(name);
    expect(cd).toContain('filename="Cerere stampilata _final_.pdf"');
    expect((await fetch(`${base}/api/registratura/entries/${e.id}/attachments/${att.id}`, { headers: { cookie: dan.cookie } })).status).toBe(404);
    expect((await call('DELETE', `/api/registratura/entries/${e.id}`, { who: bogdan })).status).toBe(200);
    await expect(s3().send(new HeadObjectCommand({ Bucket: config.s3.buckets.attachments, Key: `registry/${e.id}/${att.id}` }))).rejects.toThrow();
  });

  test('migrate-blobs twice: attachments byte-identical in object storage, nothing duplicated', async () => {
    await clearYear(2036);
    const a = randomBytes(50_000);
    const b = Buffer.from('Notă internă cu diacritice: ș ț ă î â', 'utf8');
    const legacy = [
      { id: 'leg-1', name: 'scan vechi.pdf', size: a.length, mimeType: 'application/pdf', data: a.toString('base64') },
      { name: 'notă.txt', fileData: `data:text/plain;base64,${b.toString('base64')}` },
    ];
    const ins = await db().query<{ id: string }>(
      `INSERT INTO registry_entries (number, company, year, sequence, direction, subject, attachments)
       VALUES ('7/2036', 'B', 0, 0, 'intrare', 'Import cu atașamente', $1::jsonb) RETURNING id`,
      [JSON.stringify(legacy)],
    );
    const id = ins.rows[0].id;
    // Readable before the migration too.
    const before = await fetch(`${base}/api/registratura/entries/${id}/attachments/leg-1`, { headers: { cookie: bogdan.cookie } });
    expect(Buffer.from(await before.arrayBuffer()).equals(a)).toBe(true);

    expect((await call('POST', '/api/storage/migrate-blobs', { who: bogdan, body: {} })).status).toBe(403);
    const first = await call('POST', '/api/storage/migrate-blobs', { who: ana, body: {} });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ remaining: 0, failed: [] });
    expect(first.body.attachments).toBeGreaterThanOrEqual(2);
    const second = await call('POST', '/api/storage/migrate-blobs', { who: ana, body: {} });
    expect(second.body).toMatchObject({ entries: 0, attachments: 0, remaining: 0 });

    const row = (await db().query(`SELECT attachments FROM registry_entries WHERE id = $1`, [id])).rows[0].attachments;
    expect(row).toHaveLength(2);
    expect(JSON.stringify(row)).not.toMatch(/"(data|fileData)"/);
    const entry = (await call('GET', `/api/registratura/entries/${id}`, { who: bogdan })).body;
    expect(entry.attachments.map((x: any) => [x.name, x.size])).toEqual([['scan vechi.pdf', a.length], ['notă.txt', b.length]]);
    for (const [att, bytes] of [[entry.attachments[0], a], [entry.attachments[1], b]] as const) {
      const dl = await fetch(`${base}/api/registratura/entries/${id}/attachments/${att.id}`, { headers: { cookie: bogdan.cookie } });
      expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
    }
    const trail = await call('GET', `/api/registratura/entries/${id}/history`, { who: ana });
    expect(trail.body.items.filter((h: any) => h.action === 'attachment-migrate')).toHaveLength(1);
  });
});

describe('status monitoring', () => {
  async function simStatus(number: string, status: string, text?: string) {
    const r = await fetch(`${sim.url}/__sim/status`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ number, status, text }) });
    expect(r.status).toBe(200);
  }
  async function simFaults(body: unknown | null) {
    await fetch(`${sim.url}/__sim/faults`, { method: body ? 'POST' : 'DELETE', headers: { 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  }
  const single = (id: string, who: TestSession = bogdan) => call('POST', '/api/registratura/status-check/single', { who, body: { id } });
  async function notificationsFor(userId: string) {
    return (await db().query(`SELECT type, title, body, link FROM notifications WHERE user_id = $1 AND type = 'status-change'`, [userId])).rows;
  }
  async function batch(): Promise<any> {
    const start = await call('POST', '/api/registratura/status-check', { headers: { authorization: `Bearer ${config.tokens.cronSecret}` } });
    expect(start.status).toBe(202);
    for (let i = 0; i < 300; i++) {
      const p = await call('GET', start.body.progressUrl, { who: ana });
      if (p.body?.status === 'done') return p.body.result;
      if (p.body?.status === 'failed') throw new Error(p.body.error);
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('status check never finished');
  }

  test("one user's flood of checks at the authority is refused past his cap (429), a colleague's check still answers", async () => {
    await clearYear(2036);
    const tracked = (n: number) => create(bogdan, { direction: 'iesire', date: '2036-03-01', subject: 'Autorizație', tracking: { authority: 'Primăria Brașov', requestNumber: `${Date.now() % 1_000_000}-${n}/2036` } });
    const mine = (await tracked(1)).body;
    const colleagues = (await tracked(2)).body;
    // Each check waits on the authority long enough for the flood to be in flight at once.
    await simFaults({ latencyMs: 1500 });
    try {
      const flood = Promise.all(Array.from({ length: 10 }, () => single(mine.id)));
      await new Promise((r) => setTimeout(r, 300));
      const other = await single(colleagues.id, ana);
      const answers = await flood;
      expect(other.status).toBe(200);
      expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(config.limits.portal.perUser);
      expect(answers.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
      expect(answers.find((r) => r.status === 429)!.body).toMatchObject({ error: 'rate_limited' });
    } finally {
      await simFaults(null);
    }
  });

  test('a status change is detected once and notified once; errors and cedilla spellings are not changes', async () => {
    await clearYear(2037);
    const requestNumber = `${Date.now() % 1_000_000}/2037`;
    const e = (await create(bogdan, { direction: 'iesire', date: '2037-02-01', subject: 'Certificat de urbanism', tracking: { authority: 'Primăria Brașov', requestNumber } })).body;

    const baseline = await single(e.id);
    expect(baseline.body).toMatchObject({ outcome: 'baseline', status: 'inregistrat', statusClass: 'blue', notified: false });
    expect(baseline.body.entry.tracking.petitionerName).toBeTruthy();
    // The simulator alternates comma-below and cedilla spellings between visits: no change.
    for (let i = 0; i < 3; i++) expect((await single(e.id)).body.outcome).toBe('unchanged');

    await simFaults({ errorRate: 1 });
    for (let i = 0; i < 2; i++) {
      const err = await single(e.id);
      expect(err.body).toMatchObject({ outcome: 'error', status: 'inregistrat', notified: false });
    }
    await simFaults(null);
    expect((await single(e.id)).body.outcome).toBe('unchanged');
    expect(await notificationsFor(bogdan.data.user.id)).toEqual([]);

    await simStatus(requestNumber, 'aprobat');
    const first = await batch();
    expect(first.changed).toBe(1);
    expect(first.notified).toBe(1);
    const again = await batch();
    expect(again.changed).toBe(0);
    const after = await single(e.id);
    expect(after.body).toMatchObject({ outcome: 'unchanged', status: 'aprobat', statusClass: 'green' });
    expect(after.body.entry.tracking.history.map((h: any) => h.status)).toEqual(['inregistrat', 'aprobat']);
    const notes = await notificationsFor(bogdan.data.user.id);
    expect(notes).toHaveLength(1);
    expect(notes[0].title).toContain('Aprobată');
    expect(notes[0].link).toBe(`/registratura?id=${e.id}`);

    // The restricted viewer sees the tracking block without the petitioner.
    expect((await call('GET', `/api/registratura/entries/${e.id}`, { who: elena })).body.tracking).toMatchObject({ petitionerName: null, status: 'aprobat' });
    // Bearer required for the batch route.
    expect((await call('POST', '/api/registratura/status-check', { who: ana })).status).toBe(401);
  }, 120_000);

  test('a request that ended more than 30 days ago is no longer asked about by the batch (check now still asks); a long batch continues as new', async () => {
    await clearYear(2038);
    const tracked = async (n: number) => {
      const requestNumber = `${Date.now() % 1_000_000}-${n}/2038`;
      const e = (await create(bogdan, { direction: 'iesire', date: '2038-02-01', subject: `Autorizație ${n}`, tracking: { authority: 'Primăria Brașov', requestNumber } })).body;
      expect((await single(e.id)).body.outcome).toBe('baseline');
      return { id: e.id as string, requestNumber };
    };
    const ended = await tracked(1);
    const open = await tracked(2);
    await tracked(3);
    await simStatus(ended.requestNumber, 'emis');
    expect((await single(ended.id)).body).toMatchObject({ outcome: 'changed', status: 'emis' });
    const lastChecked = async (id: string) => (await db().query<{ at: string }>(`SELECT tracking->>'lastCheckedAt' AS at FROM registry_entries WHERE id = $1`, [id])).rows[0].at;

    // Issued a month and a day ago.
    await db().query(
      `UPDATE registry_entries SET tracking = jsonb_set(tracking, '{history,-1,at}', to_jsonb(to_char((now() - interval '31 days') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))) WHERE id = $1`,
      [ended.id],
    );
    const before = { ended: await lastChecked(ended.id), open: await lastChecked(open.id) };
    // A batch of one entry a run: every run continues as new until the last entry.
    const workflowId = `registry-status-check-per-run-${Date.now()}`;
    const run = await env.client.workflow.start('registryStatusCheck', { taskQueue: TaskQueue.store, workflowId, args: [{ entriesPerRun: 1 }] });
    const result = await run.result();
    const firstRun = (await env.client.workflow.getHandle(workflowId, run.firstExecutionRunId).fetchHistory()).events ?? [];
    expect(firstRun.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    const after = { ended: await lastChecked(ended.id), open: await lastChecked(open.id) };
    expect(after.ended).toBe(before.ended);
    expect(after.open > before.open).toBe(true);
    // The tally of every run: at least the two entries of this test still watched.
    expect(result.checked).toBeGreaterThanOrEqual(2);
    // A user who opens the entry may still ask now.
    expect((await single(ended.id)).body).toMatchObject({ outcome: 'unchanged', status: 'emis' });

    // Ten days after the issue it is still watched.
    await db().query(
      `UPDATE registry_entries SET tracking = jsonb_set(tracking, '{history,-1,at}', to_jsonb(to_char((now() - interval '10 days') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))) WHERE id = $1`,
      [ended.id],
    );
    const watched = await lastChecked(ended.id);
    await env.client.workflow.execute('registryStatusCheck', { taskQueue: TaskQueue.store, workflowId: `registry-status-check-recent-${Date.now()}`, args: [{}] });
    expect((await lastChecked(ended.id)) > watched).toBe(true);
  }, 120_000);
});
