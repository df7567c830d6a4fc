/**
 * The landreg HTTP routes of the parcel sync against the real app (createApp), real PostGIS,
 * real Temporal workers on their own task queues and an in-process simulator: the session state
 * machine of spec 3.1, maintenance, the UAT catalogue, waiting and background syncs, progress,
 * the 409 rules and the 410 legacy write gate.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { forgetUat, pickUat, storedLayer, truthLayer, type SyncRig } from '../helpers/landregStack';
import { until } from '../helpers/wait';
import { legacyGateTests, startLandregRoutes, type LandregRoutes } from '../helpers/landregRoutes';

let routes: LandregRoutes<'legacy' | 'central' | 'admin' | 'colleague'>;
let rig: SyncRig;
let siruta: number;

const api: typeof routes.api = (...call) => routes.api(...call);

async function waitForProgress(jobId: string, until: (p: any) => boolean, timeoutMs = 60_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await api('GET', `/api/landreg/progress?jobId=${encodeURIComponent(jobId)}`);
    if (r.status === 200 && until(r.body)) return r.body;
    if (Date.now() > end) throw new Error(`progress never matched: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

beforeAll(async () => {
  routes = await startLandregRoutes({
    legacy: ['dan@birou.ro', false],
    central: ['mihai@birou.ro', true],
    admin: ['ana@birou.ro', false, true],
    colleague: ['elena@birou.ro', false],
  });
  rig = routes.rig;
  // Ilfov (workspace 234), the second-smallest UAT: this file's own data.
  siruta = (await pickUat(rig, 234, 1)).siruta;
  await forgetUat(rig.db, siruta);
}, 120_000);

afterAll(async () => {
  await routes?.stop();
});

describe('legacy write gate (spec 5.9)', () => {
  legacyGateTests(
    api,
    [
      ['POST', '/api/landreg/sync'],
      ['POST', '/api/landreg/sync-background'],
      ['POST', '/api/landreg/sync-county'],
      ['POST', '/api/landreg/sync-all-counties'],
      ['POST', '/api/landreg/refresh-all'],
      ['POST', '/api/landreg/uats'],
      ['PATCH', '/api/landreg/uats'],
    ],
    ['/api/landreg/counties', '/api/landreg/stats'],
  );

  test('bad bodies answer 400 with details', async () => {
    const r = await api('POST', '/api/landreg/sync', { body: { siruta: 'abc' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('bad_request');
    expect(Array.isArray(r.body.details)).toBe(true);
    expect((await api('POST', '/api/landreg/sync-background', { body: { siruta, mode: 'turbo' } })).status).toBe(400);
  });
});

describe('portal session (spec 3.1)', () => {
  test('login connects the shared session; GET session shows it', async () => {
    const r = await api('POST', '/api/landreg/login', { body: {} });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ connected: true, username: 'geoportal', portalAvailable: true, portalMaintenance: false });
    const s = await api('GET', '/api/landreg/session');
    expect(s.body).toMatchObject({ connected: true, username: 'geoportal' });
    expect(typeof s.body.runningJobs).toBe('number');
    // The cookie is encrypted at rest.
    const row = await rig.db.query(`SELECT cookies_encrypted FROM landreg_portal_sessions WHERE id = 'shared'`);
    expect(row.rows[0].cookies_encrypted).toMatch(/^v1:/);
    expect(row.rows[0].cookies_encrypted).not.toContain('JSESSIONID');
  });

  test('wrong credentials are refused without touching the shared session', async () => {
    // Another password than the configured account's is an administrator's to try (issue 40).
    const user = await api('POST', '/api/landreg/login', { body: { username: 'geoportal', password: 'gresit' } });
    expect(user.status).toBe(403);
    expect(user.body.error).toBe('forbidden');
    const r = await api('POST', '/api/landreg/login', { body: { username: 'geoportal', password: 'gresit' }, who: 'admin' });
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('portal_credentials_invalid');
    expect((await api('GET', '/api/landreg/session')).body.connected).toBe(true);
  });

  test('only an administrator replaces or disconnects the shared portal account (403 for others)', async () => {
    const other = await api('POST', '/api/landreg/login', { body: { username: 'alt-cont', password: 'parola' } });
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining('administratorii') });
    const viaSession = await api('POST', '/api/landreg/session', { body: { action: 'connect', username: 'alt-cont', password: 'parola' } });
    expect(viaSession.status).toBe(403);
    const off = await api('POST', '/api/landreg/session', { body: { action: 'disconnect' } });
    expect(off.status).toBe(403);
    // Nothing changed for anyone.
    expect((await api('GET', '/api/landreg/session')).body).toMatchObject({ connected: true, username: 'geoportal' });
    // The administrator's attempt at another account reaches the portal (which refuses it).
    const admin = await api('POST', '/api/landreg/login', { body: { username: 'alt-cont', password: 'parola' }, who: 'admin' });
    expect(admin.status).toBe(422);
  });

  test('during maintenance login answers 503 portal_maintenance and health reports it; recovery clears it', async () => {
    await rig.simJson('POST', '/__sim/faults', { maintenance: true });
    try {
      const r = await api('POST', '/api/landreg/session', { body: { action: 'connect' } });
      expect(r.status).toBe(503);
      expect(r.body.error).toBe('portal_maintenance');
      const h = await api('GET', '/api/landreg/health');
      expect(h.body).toMatchObject({ portalAvailable: false, portalMaintenance: true });
      expect(h.body.consecutiveFailures).toBeGreaterThanOrEqual(1);
      // The session view shows the check just recorded. The record is the store's one portal state,
      // which another test file's health check against its own (working) simulator may write in
      // between: the pair is asked again, a few times at most.
      const session = await until('the session to show the maintenance just checked', async () => {
        await api('GET', '/api/landreg/health');
        const s = (await api('GET', '/api/landreg/session')).body;
        return s.portalMaintenance === true ? s : undefined;
      }, 5_000, 100);
      expect(session).toMatchObject({ portalMaintenance: true, portalAvailable: false });
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
    const h = await api('GET', '/api/landreg/health');
    expect(h.body).toMatchObject({ portalAvailable: true, portalMaintenance: false, consecutiveFailures: 0 });
  });
});

describe('UAT catalogue', () => {
  test('POST /uats fills the catalogue; a repeat changes nothing', async () => {
    const first = await api('POST', '/api/landreg/uats');
    expect(first.status).toBe(200);
    expect(first.body.counties).toBe(42);
    expect(first.body.totalUats).toBeGreaterThanOrEqual(3186);
    const again = await api('POST', '/api/landreg/uats');
    // Other tests may add UATs of their own to a county (its count then differs for ever), so
    // the repeat may re-read a county, but it has nothing to write.
    expect(again.body.upserted).toBe(0);
    expect(again.body.fetchedCounties).toBeLessThan(42);
    const counties = await api('GET', '/api/landreg/counties');
    expect(counties.body.counties).toContain('Ilfov');
    // Romanian alphabetical order: Sălaj before Sibiu and Suceava, Vâlcea before Vrancea.
    const list: string[] = counties.body.counties;
    expect(list).toEqual([...list].sort((a, b) => a.localeCompare(b, 'ro')));
    for (const [before, after] of [['Sălaj', 'Sibiu'], ['Vâlcea', 'Vrancea']]) {
      expect(list).toEqual(expect.arrayContaining([before, after]));
      expect(list.indexOf(before)).toBeLessThan(list.indexOf(after));
    }
  });
});

describe('sync jobs', () => {
  test('POST /sync waits and answers one GisSyncRun per layer', async () => {
    const r = await api('POST', '/api/landreg/sync', { body: { siruta, layers: ['TERENURI_ACTIVE', 'CLADIRI_ACTIVE'] } });
    expect(r.status).toBe(200);
    expect(r.body.runs).toHaveLength(2);
    expect(r.body.runs[0]).toMatchObject({ siruta, layerId: 'TERENURI_ACTIVE', mode: 'full', status: 'done', trigger: 'manual' });
    const [stored, truth] = await Promise.all([storedLayer(rig.db, siruta, 'TERENURI_ACTIVE'), truthLayer(rig, siruta, 'TERENURI_ACTIVE')]);
    expect(stored.size).toBe(truth.size);
    const again = await api('POST', '/api/landreg/sync', { body: { siruta, layer: 'TERENURI_ACTIVE' } });
    expect(again.body.runs[0]).toMatchObject({ mode: 'delta', added: 0, removed: 0 });

    const list = await api('GET', `/api/landreg/features?siruta=${siruta}&layerId=TERENURI_ACTIVE&limit=5`);
    expect(list.body.total).toBe(truth.size);
    expect(list.body.items).toHaveLength(5);
    const uats = await api('GET', '/api/landreg/uats?features=true');
    expect(uats.body.items.find((u: any) => u.siruta === siruta)).toHaveProperty('featureCount');
    const status = await api('GET', `/api/landreg/sync-status?siruta=${siruta}`);
    expect(status.body.items.map((i: any) => i.layerId).sort()).toEqual(['CLADIRI_ACTIVE', 'TERENURI_ACTIVE']);
    const summary = await api('GET', '/api/landreg/db-summary');
    expect(summary.body.uats.find((u: any) => u.siruta === siruta).layers.TERENURI_ACTIVE.total).toBe(truth.size);
    expect((await api('GET', '/api/landreg/layers/summary')).body.layers.length).toBeGreaterThanOrEqual(4);

    const ref = (list.body.items[0] as { cadastralRef: string }).cadastralRef;
    // Debug fields are for administrators (issue 13).
    expect((await api('GET', `/api/landreg/debug-fields?siruta=${siruta}&cadRef=${encodeURIComponent(ref)}`)).status).toBe(403);
    const dbg = await api('GET', `/api/landreg/debug-fields?siruta=${siruta}&cadRef=${encodeURIComponent(ref)}`, { who: 'admin' });
    expect(dbg.status).toBe(200);
    expect(dbg.body.portal.parcels.length).toBeGreaterThanOrEqual(1);
    expect(dbg.body.local.length).toBeGreaterThanOrEqual(1);
  });

  test('sync-background answers 202, refuses a twin with 409, refuses a disconnect, and reports progress', async () => {
    await rig.simJson('POST', '/__sim/mutate', { siruta, layerId: 'TERENURI_ACTIVE', add: 4, remove: 1 });
    // The portal holds the UAT's queries, so the job is still running while we poke at it.
    await rig.simJson('POST', '/__sim/faults', { holdSirutas: [siruta] });
    try {
      const r = await api('POST', '/api/landreg/sync-background', { body: { siruta, mode: 'base' } });
      expect(r.status).toBe(202);
      expect(r.body.jobId).toMatch(new RegExp(`^sync-background:${siruta}:[0-9A-Z]{26}$`));
      expect(r.body.progressUrl).toBe(`/api/landreg/progress?jobId=${encodeURIComponent(r.body.jobId)}`);

      const twin = await api('POST', '/api/landreg/sync-background', { body: { siruta, mode: 'base' } });
      expect(twin.status).toBe(409);
      expect(twin.body).toMatchObject({ error: 'already_running', jobId: r.body.jobId });
      // Even fired together (a double click), one request starts the job and the others name it.
      const burst = await Promise.all([1, 2, 3].map(() => api('POST', '/api/landreg/sync-background', { body: { siruta, mode: 'base' } })));
      expect(burst.map((b) => [b.status, b.body.jobId])).toEqual([1, 2, 3].map(() => [409, r.body.jobId]));

      const off = await api('POST', '/api/landreg/session', { body: { action: 'disconnect' }, who: 'admin' });
      expect(off.status).toBe(409);
      expect(off.body.error).toBe('jobs_running');
      expect(off.body.runningJobs).toBeGreaterThanOrEqual(1);

      const running = await api('GET', r.body.progressUrl);
      expect(running.body).toMatchObject({ jobId: r.body.jobId, kind: 'sync-background', status: 'running' });
      // A job's progress is its starter's and the administrators' (issue 25): to a colleague it does not exist.
      const colleague = await api('GET', r.body.progressUrl, { who: 'colleague' });
      expect(colleague).toMatchObject({ status: 404, body: { error: 'not_found' } });
      expect(JSON.stringify(colleague.body)).not.toContain('running');
      expect((await api('GET', r.body.progressUrl, { who: 'admin' })).body).toMatchObject({ jobId: r.body.jobId, status: 'running' });

      await rig.simJson('DELETE', '/__sim/faults');
      const done = await waitForProgress(r.body.jobId, (p) => p.status !== 'running');
      expect(done).toMatchObject({ status: 'done', percent: 100 });
      expect(done.result.added).toBe(4);
      expect(done.result.removed).toBe(1);
      expect(done.finishedAt).toBeDefined();
      // Nor its result.
      expect((await api('GET', r.body.progressUrl, { who: 'colleague' })).status).toBe(404);
      expect((await api('GET', r.body.progressUrl, { who: 'admin' })).body).toMatchObject({ status: 'done', result: { added: 4 } });
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  });

  test('requests racing to start the same job start it once: one 202, the others 409 naming it', async () => {
    // Ilfov's third-smallest UAT: nothing runs for it yet.
    const other = (await pickUat(rig, 234, 2)).siruta;
    await forgetUat(rig.db, other);
    await rig.simJson('POST', '/__sim/faults', { holdSirutas: [other] });
    try {
      const answers = await Promise.all([1, 2, 3].map(() => api('POST', '/api/landreg/sync-background', { body: { siruta: other, mode: 'base' } })));
      const started = answers.filter((a) => a.status === 202);
      expect(started).toHaveLength(1);
      const jobId = started[0].body.jobId;
      expect(answers.filter((a) => a.status === 409).map((a) => [a.body.error, a.body.jobId])).toEqual([
        ['already_running', jobId],
        ['already_running', jobId],
      ]);
      await rig.simJson('DELETE', '/__sim/faults');
      expect(await waitForProgress(jobId, (p) => p.status !== 'running')).toMatchObject({ status: 'done' });
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  });

  test('progress of an unknown job is 404', async () => {
    expect((await api('GET', '/api/landreg/progress?jobId=sync-background:1:01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    expect((await api('GET', '/api/landreg/progress?jobId=nonsense')).status).toBe(404);
  });

  test('auto-refresh needs the cron bearer token', async () => {
    expect((await api('POST', '/api/landreg/auto-refresh', { bearer: 'wrong' })).status).toBe(401);
  });
});
