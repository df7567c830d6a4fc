/**
 * CF extract ordering end to end (issue 15): the real app, real PostgreSQL, MinIO and Temporal
 * workers of this run, and the certificate portal simulator over HTTP. What a user checks: the
 * credits spent, the PDFs and what they say, the portal's own truth about its cart and orders,
 * the records' states, who sees CF numbers.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { closePool } from '../../domain/db/pool';
import { closeTemporalClient } from '../../temporal/client';
import { freshCadastral, pdfText, sessions, someUats, startCfRig, type CfRig } from '../helpers/cfStack';
import { createTestSessionRecord, type TestSession } from '../helpers/session';

let rig: CfRig;
let who: Awaited<ReturnType<typeof sessions>>;
const uats = someUats(6);

const call = (method: string, p: string, opts: { body?: unknown; as?: TestSession } = {}) => rig.api(method, p, opts.as ?? who.dan, opts.body);

function parcels(n: number, offset = 0) {
  return Array.from({ length: n }, (_, i) => {
    const u = uats[(i + offset) % uats.length];
    return { nrCadastral: freshCadastral(i + offset), siruta: u.siruta, workspacePk: u.workspacePk };
  });
}

const batchDone = (orderId: string, as: TestSession = who.dan) => rig.batchDone(orderId, as, 90_000);
const truth = (): Promise<{ credits: number; orders: Array<{ id: string; items: any[] }>; cart: any[] }> => rig.truth();
const submits = async () => (await rig.requestCounts()).submit ?? 0;

beforeAll(async () => {
  rig = await startCfRig();
  await rig.startWorkers();
  who = await sessions(rig.db);
}, 180_000);

afterAll(async () => {
  const ids = Object.values(who ?? {}).map((s) => s.data.user.id);
  await rig?.db.query(`DELETE FROM notifications WHERE user_id = ANY($1)`, [ids]);
  await Promise.allSettled(Object.values(who ?? {}).map((s) => s.end()));
  await rig?.stop();
  await closeTemporalClient();
  await closePool();
}, 60_000);

describe('a batch of five parcels', () => {
  let ordered: ReturnType<typeof parcels>;
  let orderId: string;
  let done: any[];

  beforeAll(async () => {
    await rig.simJson('POST', '/__sim/reset', {});
    ordered = parcels(5);
    const r = await call('POST', '/api/cfportal/order', { body: { parcels: ordered } });
    expect(r.status).toBe(202);
    orderId = r.body.orderId;
    expect(r.body.extracts).toHaveLength(5);
    expect(r.body.extracts.every((e: any) => e.status === 'pending' && e.orderId === orderId && e.version === 1)).toBe(true);
    done = await batchDone(orderId);
  }, 120_000);

  test('spends exactly 5 credits in ONE submit, and every extract is completed, valid 30 days, at its last step', async () => {
    const t = await truth();
    expect(t.credits).toBe(45);
    expect(await submits()).toBe(1);
    expect(t.orders).toHaveLength(1);
    expect(t.orders[0].items).toHaveLength(5);
    expect(t.cart).toEqual([]);
    for (const e of done) {
      expect(e).toMatchObject({ status: 'completed', state: 'valid', currentStep: 'done', userId: who.dan.data.user.id, type: 'portal' });
      expect(new Date(e.expiresAt).getTime() - new Date(e.issuedAt).getTime()).toBe(30 * 24 * 3600 * 1000);
      expect(e.cfNumber).toMatch(/^\d+$/);
    }
    const credits = await call('GET', '/api/cfportal/credits');
    expect(credits.body).toMatchObject({ credits: 45, reserved: 0, available: 45, costPerExtract: 1 });
  });

  test('yields 5 PDFs whose text names the parcel, its UAT and its CF number', async () => {
    for (const p of ordered) {
      const e = done.find((x) => x.nrCadastral === p.nrCadastral);
      const r = await call('GET', e.downloadUrl);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/pdf');
      expect(r.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent(e.documentName)}`);
      expect(r.raw.subarray(0, 5).toString()).toBe('%PDF-');
      const text = await pdfText(r.raw);
      expect(text).toContain(`Nr. cadastral ${p.nrCadastral}`);
      expect(text).toContain(`SIRUTA ${p.siruta}`);
      expect(text).toContain(`Carte funciara nr. ${e.cfNumber}`);
    }
  });

  test('the orderer gets one cf-extract-ready notification for the batch, naming its five parcels', async () => {
    const r = await rig.db.query<{ title: string; body: string; link: string }>(
      `SELECT title, body, link FROM notifications WHERE user_id = $1 AND type = 'cf-extract-ready' AND idempotency_key LIKE $2`,
      [who.dan.data.user.id, `cf-extract-ready:${orderId}:%`],
    );
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]).toMatchObject({ title: '5 extrase CF gata', link: '/parcel-sync?tab=epay' });
    for (const p of ordered) expect(r.rows[0].body).toContain(p.nrCadastral);
  });

  test('cf-status answers from the extract: completed, its expiry and download URL', async () => {
    const p = ordered[0];
    const e = done.find((x) => x.nrCadastral === p.nrCadastral);
    const r = await call('GET', `/api/geoportal/cf-status?nrCad=${p.nrCadastral}&siruta=${p.siruta}`);
    expect(r.body).toMatchObject({ exists: true, status: 'completed', state: 'valid', expiresAt: e.expiresAt, downloadUrl: e.downloadUrl });
    const none = await call('GET', `/api/geoportal/cf-status?nrCad=${freshCadastral(99)}&siruta=${p.siruta}`);
    expect(none.body).toEqual({ exists: false });
  });

  test('a parcel with a valid extract answers 409 catalog_hit; force orders it again as version 2', async () => {
    const p = ordered[1];
    const hit = await call('POST', '/api/cfportal/order', { body: p });
    expect(hit.status).toBe(409);
    expect(hit.body.error).toBe('catalog_hit');
    expect(hit.body.hits[0]).toMatchObject({ nrCadastral: p.nrCadastral, siruta: p.siruta });
    const forced = await call('POST', '/api/cfportal/order', { body: { ...p, force: true } });
    expect(forced.status).toBe(202);
    expect(forced.body.extracts[0].version).toBe(2);
    await batchDone(forced.body.orderId);
    expect((await truth()).credits).toBe(44);
  }, 120_000);

  test('after expiry a new order is accepted without force and increments the version', async () => {
    const p = ordered[2];
    await rig.db.query(`UPDATE cf_extracts SET expires_at = now() - interval '1 second' WHERE nr_cadastral = $1 AND siruta = $2`, [p.nrCadastral, p.siruta]);
    const status = await call('GET', `/api/geoportal/cf-status?nrCad=${p.nrCadastral}&siruta=${p.siruta}`);
    expect(status.body.state).toBe('expired');
    const again = await call('POST', '/api/cfportal/order', { body: p });
    expect(again.status).toBe(202);
    expect(again.body.extracts[0].version).toBe(2);
    await batchDone(again.body.orderId);
  }, 120_000);

  test('restricted viewers see no CF numbers, none of other people’s orders, and may neither order nor download an extract', async () => {
    const full = await call('GET', `/api/cfportal/orders?orderId=${orderId}`);
    expect(full.body.items.every((e: any) => typeof e.cfNumber === 'string')).toBe(true);
    for (const as of [who.elena, who.ioana]) {
      const r = await call('GET', `/api/cfportal/orders?orderId=${orderId}`, { as });
      expect(r.body).toEqual({ items: [], total: 0 });
      // A parcel no other test ordered again: its version 1 is still its valid extract.
      const untouched = done.find((e) => e.nrCadastral === ordered[3].nrCadastral);
      const state = await call('GET', `/api/cfportal/parcel?nrCad=${untouched.nrCadastral}&siruta=${untouched.siruta}`, { as });
      expect(state.body.extract).toMatchObject({ id: untouched.id, state: 'valid', cfNumber: null });
      expect(await call('GET', done[0].downloadUrl, { as })).toMatchObject({ status: 403, body: { error: 'forbidden' } });
      const order = await call('POST', '/api/cfportal/order', { body: { nrCadastral: untouched.nrCadastral, siruta: untouched.siruta }, as });
      // A central-API pilot (ioana) meets the legacy gate first: the office's account is never hers.
      expect(order).toMatchObject(as.data.flags.useCentralApi ? { status: 410, body: { error: 'gone_central_api' } } : { status: 403, body: { error: 'forbidden' } });
    }
  });
});

describe('the shared cart', () => {
  test('two batches ordered at the same moment never share the cart: two orders, each holding only its own parcels', async () => {
    await rig.simJson('POST', '/__sim/reset', {});
    const a = parcels(3, 0);
    const b = parcels(3, 3);
    const [ra, rb] = await Promise.all([
      call('POST', '/api/cfportal/order', { body: { parcels: a } }),
      call('POST', '/api/cfportal/order', { body: { parcels: b }, as: who.ana }),
    ]);
    expect([ra.status, rb.status]).toEqual([202, 202]);
    await Promise.all([batchDone(ra.body.orderId), batchDone(rb.body.orderId, who.ana)]);
    const t = await truth();
    expect(t.orders).toHaveLength(2);
    expect(await submits()).toBe(2);
    expect(t.credits).toBe(44);
    const byRef = new Map(t.orders.map((o) => [o.items[0].metadata.reference, o.items]));
    expect(new Set(t.orders.flatMap((o) => o.items.map((i: any) => i.metadata.reference))).size).toBe(2);
    for (const o of t.orders) expect(new Set(o.items.map((i: any) => i.metadata.reference)).size).toBe(1);
    expect(byRef.get(ra.body.orderId)!.map((i: any) => i.cadastralNumber).sort()).toEqual(a.map((p) => p.nrCadastral).sort());
    expect(byRef.get(rb.body.orderId)!.map((i: any) => i.cadastralNumber).sort()).toEqual(b.map((p) => p.nrCadastral).sort());
  }, 180_000);

  test('foreign items found in the cart are removed before anything is added, and are not paid for', async () => {
    await rig.simJson('POST', '/__sim/reset', {});
    // Someone used the portal's web site with the same account and left an item in the cart.
    const login = await fetch(`${rig.sim.url}/cf/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rig.credentials),
    });
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    const u = uats[0];
    await fetch(`${rig.sim.url}/cf/api/cart/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ countyId: u.workspacePk, uatId: u.siruta, cadastralNumber: 'STRAIN-1' }),
    });
    const r = await call('POST', '/api/cfportal/order', { body: { parcels: parcels(2, 1) } });
    expect(r.status).toBe(202);
    await batchDone(r.body.orderId);
    const t = await truth();
    expect(t.orders).toHaveLength(1);
    expect(t.orders[0].items.map((i: any) => i.cadastralNumber)).not.toContain('STRAIN-1');
    expect(t.credits).toBe(48);
  }, 120_000);
});

describe('credits', () => {
  test('402 insufficient_credits leaves the cart and the credits untouched', async () => {
    await rig.simJson('POST', '/__sim/reset', {});
    await rig.simJson('POST', '/__sim/credits', { credits: 2 });
    await rig.simJson('DELETE', '/__sim/requests');
    const r = await call('POST', '/api/cfportal/order', { body: { parcels: parcels(3) } });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: 'insufficient_credits', credits: 2, needed: 3 });
    expect(r.body.message).toMatch(/Credit insuficient/);
    const t = await truth();
    expect(t).toMatchObject({ credits: 2, cart: [], orders: [] });
    const counts = (await rig.simJson('GET', '/__sim/requests')).counts;
    expect(counts['route:POST /cf/api/cart/items']).toBeUndefined();
    expect(counts.submit).toBeUndefined();
  });
});

describe('portal trouble', () => {
  test('portal errors and an expired portal session during polling are retried: the batch completes with one submit', async () => {
    await rig.simJson('POST', '/__sim/reset', {});
    try {
      // New batches of this order poll 1.5 s apart (an app of the rig with that setting).
      const r = await rig.withPollInterval(1500, (api) => api('POST', '/api/cfportal/order', who.dan, { parcels: parcels(2) }));
      expect(r.status).toBe(202);
      // Sessions die after 1 s idle and polls are 1.5 s apart: every poll meets an expired session.
      await rig.simJson('POST', '/__sim/faults', { errorRate: 0.25, sessionTtlSeconds: 1 });
      const items = await batchDone(r.body.orderId);
      expect(items.every((e) => e.status === 'completed')).toBe(true);
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
    expect(await submits()).toBe(1);
    const counts = (await rig.simJson('GET', '/__sim/requests')).counts;
    expect(counts['route:POST /cf/api/login']).toBeGreaterThan(1);
    expect((await truth()).credits).toBe(48);
  }, 180_000);
});

describe('routes', () => {
  test('bad bodies are 400 with the bad fields', async () => {
    const empty = await call('POST', '/api/cfportal/order', { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.details.map((d: any) => d.field).sort()).toEqual(['nrCadastral', 'siruta']);
    const bad = await call('POST', '/api/cfportal/order', { body: { parcels: [{ nrCadastral: 'a b', siruta: 'x' }], force: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.field).sort()).toEqual(['force', 'parcels.0.nrCadastral', 'parcels.0.siruta']);
    const none = await call('POST', '/api/cfportal/order', { body: { parcels: [] } });
    expect(none.status).toBe(400);
    const unknownCounty = await call('POST', '/api/cfportal/order', { body: { nrCadastral: '123', siruta: 999_999 } });
    expect(unknownCounty.status).toBe(400);
    expect(unknownCounty.body.details[0].field).toBe('parcels.0.workspacePk');
    expect((await call('GET', '/api/cfportal/download?id=nope')).status).toBe(400);
    expect((await call('GET', '/api/cfportal/test?step=everything', { as: who.ana })).status).toBe(400);
  });

  test("one user's flood of live credit reads is refused past his cap (429), a colleague's still answers", async () => {
    // Each read waits on the portal long enough for the flood to be in flight at once.
    await rig.simJson('POST', '/__sim/faults', { latencyMs: 1500 });
    try {
      const flood = Promise.all(Array.from({ length: 10 }, () => call('GET', '/api/cfportal/credits')));
      await new Promise((r) => setTimeout(r, 300));
      const colleague = await call('GET', '/api/cfportal/credits', { as: who.ana });
      const answers = await flood;
      const statuses = answers.map((r) => r.status);
      expect(colleague.status).toBe(200);
      expect(statuses.filter((st) => st === 200).length).toBeLessThanOrEqual(config.limits.portal.perUser);
      expect(statuses.filter((st) => st !== 200 && st !== 429)).toEqual([]);
      const refused = answers.find((r) => r.status === 429)!;
      expect(refused.body).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(/reîncercați/) });
      expect(answers.filter((r) => r.status === 200).every((r) => typeof r.body.credits === 'number')).toBe(true);
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  });

  test('an order whose client leaves while the live credits are read writes no extract and buys nothing', async () => {
    // Signed in to the portal first, so the order's one portal call is the credit read; it waits
    // on the portal, and the client leaves before it answers.
    expect((await call('GET', '/api/cfportal/credits')).status).toBe(200);
    await rig.simJson('POST', '/__sim/faults', { latencyMs: 1500 });
    const [parcel] = parcels(1, 60);
    try {
      const before = await truth();
      const gone = new AbortController();
      const sent = fetch(`${rig.base}/api/cfportal/order`, {
        method: 'POST',
        signal: gone.signal,
        headers: { cookie: who.dan.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ parcels: [parcel] }),
      }).catch((err: Error) => err.name);
      await new Promise((r) => setTimeout(r, 300));
      gone.abort();
      expect(await sent).toBe('AbortError');
      // Well past the moment the portal answers the read: an order that ran on is written by then.
      await new Promise((r) => setTimeout(r, 3_500));
      const written = await rig.db.query(`SELECT id FROM cf_extracts WHERE nr_cadastral = $1 AND siruta = $2`, [parcel.nrCadastral, parcel.siruta]);
      expect(written.rows).toEqual([]);
      const after = await truth();
      expect({ credits: after.credits, cart: after.cart.length, orders: after.orders.length }).toEqual({ credits: before.credits, cart: before.cart.length, orders: before.orders.length });
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  });

  test('a legacy record holding an inline pdfData still downloads, named after its documentName', async () => {
    const pdf = Buffer.from('%PDF-1.4\n% legacy extract\n%%EOF\n', 'latin1');
    const r = await rig.db.query<{ id: string }>(
      `INSERT INTO cf_extracts (user_id, nr_cadastral, siruta, status, pdf_data, document_name, issued_at, expires_at)
       VALUES ($1, $2, $3, 'completed', $4, 'Extras vechi Șag.pdf', now(), now() + interval '30 days') RETURNING id`,
      [who.dan.data.user.id, freshCadastral(50), uats[0].siruta, pdf],
    );
    const d = await call('GET', `/api/cfportal/download?id=${r.rows[0].id}`);
    expect(d.status).toBe(200);
    expect(d.raw.equals(pdf)).toBe(true);
    expect(d.headers.get('content-disposition')).toBe(`attachment; filename="Extras vechi Sag.pdf"; filename*=UTF-8''${encodeURIComponent('Extras vechi Șag.pdf')}`);
    const list = await call('GET', `/api/cfportal/orders?nrCad=${(await rig.db.query('SELECT nr_cadastral FROM cf_extracts WHERE id = $1', [r.rows[0].id])).rows[0].nr_cadastral}`);
    expect(list.body.items[0].downloadUrl).toBe(`/api/cfportal/download?id=${r.rows[0].id}`);
  });

  test('an unknown extract is 404; one still in progress is 409 cf_not_ready', async () => {
    expect((await call('GET', '/api/cfportal/download?id=00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const r = await rig.db.query<{ id: string }>(`INSERT INTO cf_extracts (user_id, nr_cadastral, siruta, status) VALUES ($1, $2, $3, 'processing') RETURNING id`, [
      who.dan.data.user.id,
      freshCadastral(51),
      uats[0].siruta,
    ]);
    const d = await call('GET', `/api/cfportal/download?id=${r.rows[0].id}`);
    expect(d.status).toBe(409);
    expect(d.body.error).toBe('cf_not_ready');
    await rig.db.query(`DELETE FROM cf_extracts WHERE id = $1`, [r.rows[0].id]);
  });

  test('an admin connects the portal account with its own credentials and disconnects it; wrong ones are 422', async () => {
    const { username, password } = rig.credentials;
    const wrong = await call('POST', '/api/cfportal/session', { body: { action: 'connect', username, password: 'gresit' }, as: who.ana });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toBe('cfportal_credentials_invalid');
    const ok = await call('POST', '/api/cfportal/session', { body: { action: 'connect', username, password }, as: who.ana });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ connected: true, username, source: 'connected', credits: expect.any(Number) });
    expect(JSON.stringify(ok.body)).not.toContain(password);
    const off = await call('POST', '/api/cfportal/session', { body: { action: 'disconnect' }, as: who.ana });
    expect(off.body).toMatchObject({ connected: false, source: 'configured' });
  });

  test('an admin may order for someone else (recorded in adminOrderedBy); anyone else may not', async () => {
    const [p] = parcels(1, 4);
    const refused = await call('POST', '/api/cfportal/order', { body: { ...p, userId: who.ana.data.user.id } });
    expect(refused.status).toBe(403);
    const r = await call('POST', '/api/cfportal/order', { body: { ...p, userId: who.dan.data.user.id }, as: who.ana });
    expect(r.status).toBe(202);
    expect(r.body.extracts[0]).toMatchObject({ userId: who.dan.data.user.id, type: 'admin', adminOrderedBy: who.ana.data.user.id });
    const own = await call('POST', '/api/cfportal/order', { body: parcels(1, 5)[0], as: who.ana });
    expect(own.body.extracts[0]).toMatchObject({ userId: who.ana.data.user.id, type: 'portal', adminOrderedBy: null });
    await Promise.all([batchDone(r.body.orderId, who.ana), batchDone(own.body.orderId, who.ana)]);
  }, 120_000);

  test('the diagnostic route is for admins: each step answers', async () => {
    expect((await call('GET', '/api/cfportal/test?step=login')).status).toBe(403);
    for (const step of ['login', 'uats', 'search', 'order', 'download']) {
      const r = await call('GET', `/api/cfportal/test?step=${step}`, { as: who.ana });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ step, ok: true });
    }
  });

  test('the diagnostic goes through the viewer rule: an admin without the personal-data right gets no CF number', async () => {
    // A finished order at the portal, so the order step's last order has items and CF numbers to show.
    if (!(await truth()).orders.length) {
      const r = await call('POST', '/api/cfportal/order', { body: parcels(1, 6)[0] });
      expect(r.status).toBe(202);
      await batchDone(r.body.orderId);
    }
    const anaBasic = await createTestSessionRecord({ email: 'ana@birou.ro', company: 'B', groups: ['admin'], enrichmentScope: 'basic', db: rig.db });
    try {
      // The same admin session gets no CF number from the extracts' list either.
      const list = await call('GET', '/api/cfportal/orders?limit=5', { as: anaBasic });
      expect(list.status).toBe(200);
      expect(list.body.items.every((e: any) => e.cfNumber === null)).toBe(true);

      const fullSearch = await call('GET', '/api/cfportal/test?step=search', { as: who.ana });
      expect(fullSearch.body.result.cfNumber).toEqual(expect.any(String));
      const search = await call('GET', '/api/cfportal/test?step=search', { as: anaBasic });
      expect(search.status).toBe(200);
      expect(search.body).toMatchObject({ step: 'search', ok: true, result: { found: true, cfNumber: null } });
      expect(search.body.result.cadastralNumber).toBe(fullSearch.body.result.cadastralNumber);
      expect(JSON.stringify(search.body)).not.toContain(fullSearch.body.result.cfNumber);

      // The order step's last order: its items (the simulator lists them without their CF numbers,
      // the portal's own record has them) reach this admin with none.
      const order = await call('GET', '/api/cfportal/test?step=order', { as: anaBasic });
      expect(order.status).toBe(200);
      expect(order.body.lastOrder.items.length).toBeGreaterThan(0);
      expect(order.body.lastOrder.items.every((i: any) => (i.cfNumber ?? null) === null && typeof i.cadastralNumber === 'string')).toBe(true);
      const portalOrder = (await truth()).orders.find((o) => o.id === order.body.lastOrder.orderId);
      expect(portalOrder?.items.length).toBe(order.body.lastOrder.items.length);
      for (const i of portalOrder!.items) expect(JSON.stringify(order.body)).not.toContain(`"${i.cfNumber}"`);
    } finally {
      await anaBasic.end();
    }
  }, 120_000);
});
