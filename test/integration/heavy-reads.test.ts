/**
 * Reads over a whole UAT or the store a person starts (the UAT dashboard, API and page; the
 * boundary check; a page of the store's features, which walks every row before its offset) are
 * heavy work like the others (domain/db/heavyRead.ts): a slot per caller and in all (429 with
 * Retry-After past them, a colleague unaffected), one pool connection each, and their statement
 * cancelled in PostgreSQL when the caller leaves. Before, a dashboard took five connections of the
 * pool's ten side by side, without any cap, and ran on after its client had gone.
 *
 * The real app in this process with the BUILT web UI (api/web.ts) over the stack's PostgreSQL;
 * the slots are this process's (no shared mode here), so the test can hold a user's own.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { heavyRead, heavyReadSlots } from '../../domain/db/heavyRead';
import { onOwnConnection } from '../../domain/db/ownConnection';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { until } from '../helpers/wait';
import { startWebApp, type WebApp } from '../helpers/webApp';

const SIRUTA = 990_731;
let app: WebApp;
let ana: TestSession;
let colleague: TestSession;

beforeAll(async () => {
  app = await startWebApp();
  const db = app.store.pool;
  await db.query(
    `INSERT INTO gis_uats (siruta, name, county, geom) VALUES ($1, 'Citire Grea Probă', 'Cluj', ST_Multi(ST_GeomFromText('POLYGON((0 0,100 0,100 100,0 100,0 0))', 3844))) ON CONFLICT (siruta) DO NOTHING`,
    [SIRUTA],
  );
  await db.query(
    `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom)
     VALUES ('TERENURI_ACTIVE', $1, 1, '700001', 100, ST_Multi(ST_GeomFromText('POLYGON((10 10,20 10,20 20,10 20,10 10))', 3844))),
            ('TERENURI_ACTIVE', $1, 2, '700002', 100, ST_Multi(ST_GeomFromText('POLYGON((150 150,160 150,160 160,150 160,150 150))', 3844)))
     ON CONFLICT DO NOTHING`,
    [SIRUTA],
  );
  ana = await createTestSessionRecord({ email: 'citire-grea-ana@birou.ro', name: 'Ana Citire', company: 'B' });
  colleague = await createTestSessionRecord({ email: 'citire-grea-coleg@birou.ro', name: 'Coleg Citire', company: 'B' });
}, 60_000);

afterAll(async () => {
  await app?.store.pool.query(`DELETE FROM gis_features WHERE siruta = $1`, [SIRUTA]);
  await app?.store.pool.query(`DELETE FROM gis_uats WHERE siruta = $1`, [SIRUTA]);
  for (const s of [ana, colleague]) await s?.end();
  await app?.close();
});

const get = async (p: string, who: TestSession) => {
  const r = await app.get(p, who);
  return { status: r.status, retryAfter: r.headers.get('retry-after'), text: r.text };
};

describe('UAT-wide reads are capped per user and in all', () => {
  test("past a user's cap his dashboard (API and page) and boundary check are 429 with Retry-After; a colleague's answer", async () => {
    // The user's own reads in flight: his whole share.
    const held = await Promise.all(Array.from({ length: config.limits.heavyRead.perUser }, () => heavyReadSlots.acquire(`u:${ana.data.user.id}`)));
    try {
      for (const p of [
        `/api/landreg/uat-dashboard?siruta=${SIRUTA}`,
        `/api/geoportal/boundary-check?siruta=${SIRUTA}`,
        `/api/landreg/features?siruta=${SIRUTA}&offset=5000000`,
        '/api/landreg/sync-status',
        '/api/landreg/db-summary',
      ]) {
        const refused = await get(p, ana);
        expect({ p, status: refused.status }).toEqual({ p, status: 429 });
        expect(Number(refused.retryAfter)).toBeGreaterThan(0);
        expect(JSON.parse(refused.text)).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('în lucru') });
      }
      const page = await get(`/parcel-sync/dashboard?siruta=${SIRUTA}`, ana);
      expect(page.status).toBe(429);
      expect(page.retryAfter).not.toBeNull();
      expect(page.text).toContain('Prea multe cereri în acest moment; reîncercați în 5 s.');
      // One UAT's sync status is a small read, not held to the cap.
      expect((await get(`/api/landreg/sync-status?siruta=${SIRUTA}`, ana)).status).toBe(200);

      const dashboard = await get(`/api/landreg/uat-dashboard?siruta=${SIRUTA}`, colleague);
      expect(dashboard.status).toBe(200);
      expect(JSON.parse(dashboard.text).parcels.total).toBe(2);
      const check = await get(`/api/geoportal/boundary-check?siruta=${SIRUTA}`, colleague);
      expect(check.status).toBe(200);
      expect(JSON.parse(check.text).edge.map((e: { cadastralRef: string }) => e.cadastralRef)).toEqual(['700002']);
      const colleaguePage = await get(`/parcel-sync/dashboard?siruta=${SIRUTA}`, colleague);
      expect(colleaguePage.status).toBe(200);
      // The UAT's parcels as the kept counts hold them (uatOption), not counted anew.
      expect(colleaguePage.text).toContain('<!-- -->2 parcele în baza locală');
      expect((await get('/api/landreg/db-summary', colleague)).status).toBe(200);
      const list = await get(`/api/landreg/features?siruta=${SIRUTA}&layerId=TERENURI_ACTIVE`, colleague);
      expect(list.status).toBe(200);
      expect(JSON.parse(list.text).items.map((i: { cadastralRef: string }) => i.cadastralRef)).toEqual(['700001', '700002']);
    } finally {
      for (const release of held) release();
    }
    // His slots back, his dashboard answers; and it gave its own slot back.
    expect((await get(`/api/landreg/uat-dashboard?siruta=${SIRUTA}`, ana)).status).toBe(200);
    expect(heavyReadSlots.active).toBe(0);
  });
});

describe('a read whose caller left is cancelled in PostgreSQL', () => {
  test('a read waiting for its turn behind the global cap stops waiting when its caller leaves (499, no query run)', async () => {
    const held = await Promise.all(Array.from({ length: config.limits.heavyRead.global }, (_, i) => heavyReadSlots.acquire(`u:other-${i}`)));
    try {
      const gone = new AbortController();
      let ran = false;
      const waiting = heavyRead(app.store.pool, { key: `u:${ana.data.user.id}`, signal: gone.signal }, async () => {
        ran = true;
      });
      await until('the read to queue', async () => heavyReadSlots.queued === 1, 5_000, 20);
      gone.abort();
      await expect(waiting).rejects.toMatchObject({ status: 499, code: 'client_closed_request' });
      expect(ran).toBe(false);
      expect(heavyReadSlots.queued).toBe(0);
    } finally {
      for (const release of held) release();
    }
  });

  test('the running statement stops at once (499), and its connection is closed, not pooled', async () => {
    const gone = new AbortController();
    const tag = `heavy-read-cancel-${Date.now()}`;
    const started = Date.now();
    const reading = onOwnConnection(app.store.pool, gone.signal, (conn) => conn.query(`SELECT pg_sleep(30) /* ${tag} */`));
    const sleeping = async () =>
      (await app.store.pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()`, [`%/* ${tag} */%`])).rows[0]?.pid;
    const pid = await until('the sleep to run in PostgreSQL', sleeping, 10_000, 50);
    gone.abort();
    await expect(reading).rejects.toMatchObject({ status: 499, code: 'client_closed_request' });
    expect(Date.now() - started).toBeLessThan(10_000);
    // Its backend is gone: the connection was closed, not handed to the next borrower.
    await until('the connection to close', async () => (await app.store.pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [pid])).rowCount === 0, 5_000, 50);
  });
});

describe("the whole store's sync status, a long list", () => {
  const FIRST = 7_310_000;
  const UATS = 700;
  const LAYERS = ['CLADIRI_ACTIVE', 'TERENURI_ACTIVE'];

  beforeAll(async () => {
    await app.store.pool.query(
      `INSERT INTO gis_sync_runs (siruta, layer_id, mode, trigger, status, started_at, finished_at, remote_count, local_count_before, added)
       SELECT s, l, 'full', 'manual', 'done', now() - interval '1 hour', now(), 10, 0, 10
         FROM generate_series($1::int, $2::int) s, unnest($3::text[]) l`,
      [FIRST, FIRST + UATS - 1, LAYERS],
    );
  });

  afterAll(async () => {
    await app?.store.pool.query(`DELETE FROM gis_sync_runs WHERE siruta BETWEEN $1 AND $2`, [FIRST, FIRST + UATS - 1]);
  });

  test('every UAT and layer, each item as the one-UAT answer gives it, sent in pieces (no Content-Length)', async () => {
    const whole = await app.get('/api/landreg/sync-status', ana);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBeNull();
    type Item = { siruta: number; layerId: string; featureCount: number; lastSuccessAt: string | null };
    const planted = (JSON.parse(whole.text).items as Item[]).filter((i) => i.siruta >= FIRST && i.siruta < FIRST + UATS);
    expect(planted.map((i) => `${i.siruta}/${i.layerId}`)).toEqual(Array.from({ length: UATS }, (_, k) => LAYERS.map((l) => `${FIRST + k}/${l}`)).flat());
    const one = await app.get(`/api/landreg/sync-status?siruta=${FIRST + 350}`, ana);
    expect(one.headers.get('content-length')).not.toBeNull();
    expect(planted.filter((i) => i.siruta === FIRST + 350)).toEqual(JSON.parse(one.text).items);
    expect(planted[0]).toMatchObject({ featureCount: 0, lastSuccessAt: expect.any(String), lastRun: { status: 'done', added: 10, remoteCount: 10 } });
  });
});
