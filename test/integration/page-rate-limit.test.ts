/**
 * The pages pass the API's per-user request limit (CONTRACT.md section 5; "an API route, a page's
 * loader or action ... all pass the same limits"): a page's document and data requests count on
 * the caller's one counter with /api, past it every loader and action answers 429 with
 * Retry-After before its work (no portal call, no query), a colleague's pages still open, and the
 * page's static files are not counted. Before this, a page loader ran unbounded: a script could
 * reload the search tab, each a portal call, as fast as the pages answered.
 *
 * The real app in this process with the BUILT web UI (api/web.ts, build/server), as api/server.ts
 * mounts it, over the stack's database, Temporal and the land-registry simulator; the limit is
 * lowered for this process only (RATE_LIMIT_PER_MINUTE).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';

const LIMIT = 30;
process.env.RATE_LIMIT_PER_MINUTE = String(LIMIT);

const { WEB_CLIENT_DIR } = await import('../../api/web');
const { outsideCalls } = await import('../../domain/metrics');
const { LandregClient } = await import('../../domain/landreg/client');
const { uatDetail } = await import('../../domain/landreg/portal');
const { createTestSessionRecord } = await import('../helpers/session');
const { startWebApp } = await import('../helpers/webApp');
type TestSession = Awaited<ReturnType<typeof createTestSessionRecord>>;

let app: Awaited<ReturnType<typeof startWebApp>>;
let base: string;
const sessions: TestSession[] = [];
const session = async (email: string) => {
  const s = await createTestSessionRecord({ email, name: email, company: 'B' });
  sessions.push(s);
  return s;
};

/** A UAT of the simulator's catalog no other test uses, put in the local catalog for the search tab. */
const SEARCHED_UAT = 1017;
let catalogued = false;

beforeAll(async () => {
  app = await startWebApp();
  base = app.base;
  const uat = await uatDetail(new LandregClient({ db: app.store.pool }), SEARCHED_UAT, false);
  catalogued =
    ((
      await app.store.pool.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, $3, $4) ON CONFLICT (siruta) DO NOTHING`, [
        SEARCHED_UAT,
        uat.name,
        uat.countyName,
        uat.workspaceId,
      ])
    ).rowCount ?? 0) > 0;
}, 60_000);

afterAll(async () => {
  if (catalogued) await app.store.pool.query(`DELETE FROM gis_uats WHERE siruta = $1`, [SEARCHED_UAT]);
  for (const s of sessions) await s.end();
  await app?.close();
});

const get = async (p: string, who: TestSession) => {
  const r = await app.get(p, who);
  return { status: r.status, retryAfter: r.headers.get('retry-after'), cacheControl: r.headers.get('cache-control'), text: r.text };
};

/** Spends the caller's minute: `n` page loads, each answered 200. */
const spend = async (who: TestSession, n: number, p = '/utilitare') => {
  for (let i = 0; i < n; i++) expect((await get(p, who)).status).toBe(200);
};

describe('pages and the API share one per-user request limit', () => {
  test('past the limit a page is a 429 with Retry-After and the reason in Romanian; the API refuses the same caller; a colleague is not refused', async () => {
    const [dana, colleague] = [await session('limita-pagini-dana@birou.ro'), await session('limita-pagini-coleg@birou.ro')];
    await spend(dana, LIMIT - 5);
    for (let i = 0; i < 5; i++) expect((await get('/api/registratura/entries', dana)).status).toBe(200);

    const refused = await get('/registratura', dana);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    expect(refused.cacheControl).toBe('no-store');
    expect(refused.text).toContain('Prea multe cereri');
    expect(refused.text).toMatch(/Reîncercați peste \d+ (secunde|secundă|de secunde)/);
    // The page's own work did not run: the registry's list is not on the refused page.
    expect(refused.text).not.toContain('<title>Registratură</title>');

    const api = await get('/api/registratura/entries', dana);
    expect(api.status).toBe(429);
    expect(JSON.parse(api.text)).toMatchObject({ error: 'rate_limited' });

    expect((await get('/registratura', colleague)).status).toBe(200);
  });

  test("a client-side navigation's data request past the limit is a 429 the page's router reads (Remix's single-fetch encoding), not a body it cannot decode", async () => {
    const dan = await session('limita-pagini-date@birou.ro');
    await spend(dan, LIMIT);
    const res = await fetch(`${base}/registratura.data`, { headers: { cookie: dan.cookie } });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toContain('text/x-script');
    const body = await res.text();
    expect(body).toContain('ErrorResponse');
    expect(body).toContain('rate_limited');
    // A form post (an action) is refused the same way.
    const post = await fetch(`${base}/infrastructura-harti`, {
      method: 'POST',
      headers: { cookie: dan.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'intent=rebuild',
    });
    expect(post.status).toBe(429);
  });

  test('past the limit the search tab makes no portal call', async () => {
    const ion = await session('limita-pagini-portal@birou.ro');
    const calls = async () => (await outsideCalls.get()).values.filter((v) => v.labels.service === 'landreg').reduce((s, v) => s + v.value, 0);
    const search = `/parcel-sync?tab=search&siruta=${SEARCHED_UAT}&cad=50001`;
    const before = await calls();
    expect((await get(search, ion)).status).toBe(200);
    // Within the limit the search asked the portal: the count below would catch a call.
    expect(await calls()).toBeGreaterThan(before);
    await spend(ion, LIMIT - 1);
    const spent = await calls();
    const refused = await get(search, ion);
    expect(refused.status).toBe(429);
    expect(await calls()).toBe(spent);
  });

  test('static files of the pages do not count: a page load brings dozens', async () => {
    const eva = await session('limita-pagini-fisiere@birou.ro');
    const assets = fs.readdirSync(path.join(WEB_CLIENT_DIR, 'assets')).slice(0, 10);
    for (let round = 0; round < 5; round++) {
      for (const a of assets) expect((await get(`/assets/${a}`, eva)).status).toBe(200);
      expect((await get('/favicon.ico', eva)).status).toBe(200);
    }
    await spend(eva, LIMIT);
    expect((await get('/utilitare', eva)).status).toBe(429);
  });
});
