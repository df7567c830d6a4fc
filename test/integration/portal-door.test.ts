/**
 * One door for portal work (issue 40, item 1): a page that reaches the land-registry portal goes
 * through the same per-user and global caps, deadline and cancellation as the API routes.
 * - a page search abandoned by its client stops its portal calls at once: none follows after the
 *   portal answers the search it had in flight (the simulator's per-UAT counts stop growing);
 * - one user's flood of page searches is refused past his cap, the page answering 429 with
 *   Retry-After and the Romanian "reîncercați în N s", his API searches are refused too (the
 *   same slots), while a colleague's `POST /api/landreg/search` answers 200;
 * - signing the shared portal account in with a password other than the configured account's
 *   is for administrators only (403 before any portal call for everyone else).
 * Runs against the running stack (API and Remix UI of the same process) and its land-registry
 * simulator; its searches are held in flight with the simulator's `holdSirutas`, which holds
 * only this suite's UAT.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { E2E_BASE_URL } from '../helpers/e2e';
import { API, SimClient } from '../helpers/landregSimClient';
import { createTestSessionRecord, type TestSession } from '../helpers/session';

const base = E2E_BASE_URL;
const SIM = config.landreg.baseUrl;
/** Demo-scale UATs of the simulator: this suite holds the first; the colleague searches the second. */
const HELD = { siruta: 42708, name: 'Chiscani', county: 'Brăila', workspacePk: 92 };
const FREE = { siruta: 63394, name: 'Sfântu Gheorghe', county: 'Covasna', workspacePk: 145 };

let dan: TestSession;
let ana: TestSession;
let admin: TestSession;
let numbers: string[];
let freeNumber: string;
const planted: number[] = [];

async function sim<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${SIM}/__sim${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${method} /__sim${path} answered ${res.status}`);
  return (await res.json()) as T;
}

async function count(key: string): Promise<number> {
  return (await sim<{ counts: Record<string, number> }>('GET', '/requests')).counts[key] ?? 0;
}

const hold = (sirutas: number[]) => sim('POST', '/faults', { holdSirutas: sirutas });

async function until(what: string, ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const pageUrl = (siruta: number, cad: string[]) => `${base}/parcel-sync?tab=search&siruta=${siruta}&cad=${encodeURIComponent(cad.join(','))}`;

async function page(who: TestSession, url: string, signal?: AbortSignal): Promise<{ status: number; retryAfter: string | null; html: string }> {
  const res = await fetch(url, { headers: { cookie: who.cookie }, redirect: 'manual', signal });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), html: await res.text() };
}

function post(who: TestSession, path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { cookie: who.cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Cadastral numbers of a UAT's immovables, as the simulator holds them. */
async function cadastralNumbers(u: { siruta: number; workspacePk: number }, n: number): Promise<string[]> {
  const portal = new SimClient(SIM);
  await portal.login();
  const list = await portal.json<{ content: Array<{ cadastralNumber: string | null }> }>(`${API}/immovable/list?workspaceId=${u.workspacePk}&adminUnitId=${u.siruta}&page=0&size=${n * 2}`);
  return [...new Set(list.content.map((i) => i.cadastralNumber).filter((c): c is string => !!c))].slice(0, n);
}

beforeAll(async () => {
  // The catalogue rows the searches resolve their county from (the stack starts with an empty
  // catalogue); the ones this suite adds, it removes.
  for (const u of [HELD, FREE]) {
    const added = await getPool().query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, $3, $4) ON CONFLICT (siruta) DO NOTHING RETURNING siruta`, [u.siruta, u.name, u.county, u.workspacePk]);
    if (added.rowCount) planted.push(u.siruta);
  }
  numbers = await cadastralNumbers(HELD, 100);
  freeNumber = (await cadastralNumbers(FREE, 1))[0];
  expect(numbers.length).toBe(100);
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  ana = await createTestSessionRecord({ email: 'ana@birou.ro', company: 'U' });
  admin = await createTestSessionRecord({ email: 'sef@birou.ro', company: 'U', flags: { isAdmin: true } });
  // The shared portal session exists before any measurement (its sign-in is a call too).
  expect((await post(ana, '/api/landreg/search', { siruta: FREE.siruta, cadastralNumbers: freeNumber })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await hold([]).catch(() => undefined);
  if (planted.length) await getPool().query(`DELETE FROM gis_uats WHERE siruta = ANY($1::int[])`, [planted]);
  for (const s of [dan, ana, admin]) await s?.end();
  await closePool();
});

describe('page loads pass the one door', () => {
  test('a page search abandoned by its client makes no further portal call', async () => {
    await hold([HELD.siruta]);
    const searchesBefore = await count(`immovable:search:${HELD.siruta}`);
    const ownershipBefore = await count(`immovable:ownership:${HELD.siruta}`);
    const started = Date.now();
    const client = new AbortController();
    const load = page(dan, pageUrl(HELD.siruta, numbers), client.signal).catch((err: Error) => err);
    // The page's search is at the portal, held there; the browser gives up after a second.
    await until('the page search at the portal', async () => (await count(`immovable:search:${HELD.siruta}`)) > searchesBefore);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
    client.abort();
    expect(await load).toMatchObject({ name: 'AbortError' });
    // The portal now answers the search it had; an unabandoned load would go on asking the
    // ownership of each of its hits.
    await new Promise((r) => setTimeout(r, 300));
    await hold([]);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await count(`immovable:ownership:${HELD.siruta}`)).toBe(ownershipBefore);

    // The control: the same page, not abandoned, asks the portal for each hit's owners.
    const done = await page(dan, pageUrl(HELD.siruta, numbers));
    expect(done.status).toBe(200);
    expect(await count(`immovable:ownership:${HELD.siruta}`)).toBeGreaterThan(ownershipBefore);
  }, 60_000);

  test("one user's flood of page searches is refused past his cap; a colleague's portal search still answers 200", async () => {
    const cap = config.limits.portal.perUser;
    await hold([HELD.siruta]);
    try {
      const searchesBefore = await count(`immovable:search:${HELD.siruta}`);
      const answered: Array<Awaited<ReturnType<typeof page>>> = [];
      const flood = Array.from({ length: cap + 3 }, () => page(dan, pageUrl(HELD.siruta, numbers.slice(0, 5))).then((r) => (answered.push(r), r)));
      await until(`${cap} page searches at the portal`, async () => (await count(`immovable:search:${HELD.siruta}`)) >= searchesBefore + cap);
      // The loads past his cap are answered at once, without a portal call; the others wait at the portal.
      await until('the loads past his cap answered', async () => answered.length >= 3);
      const refused = [...answered];
      expect(refused).toHaveLength(3);
      for (const r of refused) {
        expect(r.status).toBe(429);
        expect(r.retryAfter).toMatch(/^\d+$/);
        expect(r.html).toContain(`Prea multe cereri în acest moment; reîncercați în ${r.retryAfter} s.`);
      }
      expect(await count(`immovable:search:${HELD.siruta}`)).toBe(searchesBefore + cap);
      // The same slots: his API search is refused too, with the contract's body.
      const api = await post(dan, '/api/landreg/search', { siruta: FREE.siruta, cadastralNumbers: freeNumber });
      expect(api.status).toBe(429);
      expect(api.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await api.json()).toMatchObject({ error: 'rate_limited', message: expect.any(String) });
      // His colleague's portal search is served meanwhile.
      const hers = await post(ana, '/api/landreg/search', { siruta: FREE.siruta, cadastralNumbers: freeNumber });
      expect(hers.status).toBe(200);
      expect((await hers.json()).results).toContainEqual(expect.objectContaining({ cadastralRef: freeNumber }));
      await hold([]);
      const statuses = (await Promise.all(flood)).map((r) => r.status).sort();
      expect(statuses).toEqual([...Array<number>(cap).fill(200), 429, 429, 429]);
    } finally {
      await hold([]);
    }
  }, 90_000);
});

describe('the shared portal account', () => {
  test('signing in with a password other than the configured account\'s: 403 for a user, before any portal call', async () => {
    const logins = () => count('route:POST /eterra/api/authentication');
    const before = await logins();
    for (const [path, body] of [
      ['/api/landreg/login', { password: 'alta-parola' }],
      ['/api/landreg/login', { username: config.landreg.username, password: 'alta-parola' }],
      ['/api/landreg/session', { action: 'connect', password: 'alta-parola' }],
    ] as const) {
      const res = await post(dan, path, body);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('administratorii') });
    }
    expect(await logins()).toBe(before);
    // The configured account's own password: anyone may reconnect it.
    expect((await post(dan, '/api/landreg/login', { password: config.landreg.password })).status).toBe(200);
    // An administrator may try another password; the portal refuses it (422), the session stays.
    const adminTry = await post(admin, '/api/landreg/login', { username: config.landreg.username, password: 'alta-parola' });
    expect(adminTry.status).toBe(422);
    expect((await post(ana, '/api/landreg/search', { siruta: FREE.siruta, cadastralNumbers: freeNumber })).status).toBe(200);
  }, 60_000);
});
