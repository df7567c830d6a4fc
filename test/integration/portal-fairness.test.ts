/**
 * Portal-bound requests checked first and shared fairly (issue 25, deliverable 3), against an
 * in-process land-registry simulator that counts every call it serves (`/__sim/requests`):
 * - a SIRUTA the UAT catalogue does not know answers 404 with no portal call, on every route that
 *   takes one; a SIRUTA the catalogue knows but the portal does not costs its calls once, then
 *   answers 404 from memory;
 * - one user's flood of searches does not make a colleague's search wait behind it: the portal
 *   calls served while her search runs stay within a fair share, and the flood's fifth request
 *   in flight is refused with 429;
 * - past the request's deadline (504) no further portal call is made for it.
 * Scratch database with the demo UAT, sessions in the app's store.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type http from 'node:http';
import express from 'express';
import cookieParser from 'cookie-parser';
import type pg from 'pg';
import type { LandregSimulator } from '../../simulators/landreg/server';
import type { TestSession } from '../helpers/session';
import { listenApp } from '../helpers/appServer';

// A short overall deadline for this suite, so the deadline test needs no long wait.
process.env.LANDREG_API_DEADLINE_MS = '8000';

const { migrate } = await import('../../domain/db/migrate');
const { closePool, createPool, getPool } = await import('../../domain/db/pool');
const { LandregClient } = await import('../../domain/landreg/client');
const { storeOn } = await import('../../domain/db/store');
const { processServices } = await import('../../temporal/services');
const { sessionMiddleware } = await import('../../api/auth');
const { errorMapper } = await import('../../api/http/errorMapper');
const { heavyWork } = await import('../../api/http/rateLimit');
const { registerLandregEnrichmentRoutes } = await import('../../api/routes/landregEnrichment');
const { startLandregSimulator } = await import('../../simulators/landreg/server');
const { loadUatFromSimulator } = await import('../helpers/enrichmentFixtures');
const { scratchDatabase } = await import('../helpers/scratchDb');
const { createTestSessionRecord } = await import('../helpers/session');

/** Chiscani (Brăila), in the simulator's demo data. */
const SIRUTA = 42708;
/** Not a SIRUTA of the catalogue (nor of the portal). */
const UNKNOWN = 999_999;
/** In the catalogue (a row added by this test), unknown to the portal. */
const ONLY_IN_CATALOGUE = 999_998;
/** A slow portal budget for this suite, so a flood really queues (the deadline test slows it further). */
let rps = 5;

const scratch = scratchDatabase('geoportal_portal_fairness');
let pool: pg.Pool;
let sim: LandregSimulator;
let server: http.Server;
let api: string;
let dan: TestSession;
let ana: TestSession;
let refs: string[];

async function simCalls(): Promise<number> {
  const { counts } = (await (await fetch(`${sim.url}/__sim/requests`)).json()) as { counts: Record<string, number> };
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

function post(path: string, who: TestSession, body: unknown): Promise<Response> {
  return fetch(`${api}${path}`, { method: 'POST', headers: { cookie: who.cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const search = (who: TestSession, siruta: number, numbers: string) => post('/api/landreg/search', who, { siruta, cadastralNumbers: numbers });

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  pool = createPool(scratch.url, 8);
  sim = await startLandregSimulator({ port: 0 });
  await loadUatFromSimulator(pool, new LandregClient({ db: pool, baseUrl: sim.url }), SIRUTA);
  await pool.query(`INSERT INTO gis_uats (siruta, name, county) VALUES ($1, 'Sat fără portal', 'Brăila')`, [ONLY_IN_CATALOGUE]);
  refs = (
    await pool.query<{ r: string }>(
      `SELECT DISTINCT cadastral_ref AS r FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND cadastral_ref IS NOT NULL ORDER BY 1 LIMIT 20`,
      [SIRUTA],
    )
  ).rows.map((x) => x.r);
  const app = express();
  app.use(cookieParser());
  // Sessions in the app's store (createTestSessionRecord's), the routes on the scratch one.
  app.use(sessionMiddleware(getPool()));
  app.use('/api', express.json());
  // The portal's pace is the test's `rps` at the time of each request: one router (and its
  // client) per pace, as a process configured with that pace would have.
  const routers = new Map<number, express.Router>();
  const routerFor = (pace: number) => {
    let router = routers.get(pace);
    if (!router) {
      router = express.Router();
      registerLandregEnrichmentRoutes(router, processServices(storeOn(pool), { mail: null, outside: { landregBaseUrl: sim.url, landregRequestsPerSecond: pace } }).enrichment);
      routers.set(pace, router);
    }
    return router;
  };
  app.use((req, res, next) => routerFor(rps)(req, res, next));
  app.use(errorMapper);
  ({ server, base: api } = await listenApp(app));
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  ana = await createTestSessionRecord({ email: 'ana@birou.ro', company: 'U' });
  // The shared portal session exists before any measurement (its sign-in is a call too).
  expect((await search(ana, SIRUTA, refs[0])).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await dan?.end();
  await ana?.end();
  await new Promise((r) => server?.close(r));
  await sim?.close();
  await pool?.end();
  await closePool();
  await scratch.drop();
});

describe('a SIRUTA is checked against the UAT catalogue first', () => {
  test.each([
    ['/api/landreg/search', { siruta: UNKNOWN, cadastralNumbers: '1000' }],
    ['/api/landreg/search-owner', { siruta: UNKNOWN, name: 'Popescu' }],
    ['/api/landreg/no-geom-scan', { siruta: UNKNOWN }],
    ['/api/landreg/search', { siruta: UNKNOWN, cadastralNumbers: '1000', workspacePk: 92 }],
  ])('%s with an unknown SIRUTA: 404 and not one portal call', async (path, body) => {
    const before = await simCalls();
    const res = await post(path, dan, body);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining(String(UNKNOWN)) });
    expect(await simCalls()).toBe(before);
  });

  test('a SIRUTA the portal does not know costs its portal calls once; the repeated miss answers 404 from memory', async () => {
    // The miss scans every workspace (~44 calls): at the suite's slow 5 a second that brushes the
    // 8 s deadline, and this test is about what the miss costs, not the pace.
    rps = 50;
    try {
      const before = await simCalls();
      const first = await search(dan, ONLY_IN_CATALOGUE, '1000');
      expect(first.status).toBe(404);
      const afterFirst = await simCalls();
      // The nomenclature and the workspace scan were asked.
      expect(afterFirst).toBeGreaterThan(before);
      for (let i = 0; i < 5; i++) expect((await search(dan, ONLY_IN_CATALOGUE, '1000')).status).toBe(404);
      expect(await simCalls()).toBe(afterFirst);
    } finally {
      rps = 5;
    }
  });
});

describe('the portal budget is shared fairly', () => {
  test("a colleague's search during one user's flood gets a fair share of the portal calls; the flood's fifth request is refused", async () => {
    // ana alone: what her search costs.
    const idleBefore = await simCalls();
    expect((await search(ana, SIRUTA, refs[0])).status).toBe(200);
    const own = (await simCalls()) - idleBefore;
    expect(own).toBeGreaterThan(0);

    // dan: four searches of 20 numbers each (~21 calls each, four in flight each) at 5 calls/s;
    // past the 8 s deadline they answer 504, which is fine: the flood is not what is measured.
    const floodStart = await simCalls();
    const flood = [0, 1, 2, 3].map(() => search(dan, SIRUTA, refs.join(',')));
    while ((await simCalls()) - floodStart < 8) await new Promise((r) => setTimeout(r, 50));
    expect(heavyWork.portal.active).toBe(4);
    const fifth = await search(dan, SIRUTA, refs[1]);
    expect(fifth.status).toBe(429);
    expect(fifth.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await fifth.json()).toMatchObject({ error: 'rate_limited' });

    const during = await simCalls();
    const hers = await search(ana, SIRUTA, refs[0]);
    const served = (await simCalls()) - during;
    expect(hers.status).toBe(200);
    // First come, first served, each of her calls would wait for dan's whole queue (his four
    // searches keep about sixteen calls waiting): at least 16 × own calls served meanwhile. Turn
    // about, one of his goes per one of hers while she waits, plus what the portal serves while she
    // is not waiting at all (her database work between calls): about 2 × own and a few.
    expect(served).toBeLessThan(8 * own);
    for (const r of await Promise.all(flood)) expect([200, 504]).toContain(r.status);
  }, 60_000);

  test('past the deadline (504) no further portal call is made for the request', async () => {
    // One call a second: the search's ~21 calls need twenty seconds, past the 8 s deadline.
    rps = 1;
    try {
      const res = await search(dan, SIRUTA, refs.join(','));
      expect(res.status).toBe(504);
      expect(await res.json()).toMatchObject({ error: 'upstream_timeout' });
      // Calls already on the wire finish; nothing new starts after them.
      await new Promise((r) => setTimeout(r, 700));
      const settled = await simCalls();
      await new Promise((r) => setTimeout(r, 2000));
      expect(await simCalls()).toBe(settled);
      expect(heavyWork.portal.active).toBe(0);
    } finally {
      rps = 5;
    }
  }, 30_000);
});
