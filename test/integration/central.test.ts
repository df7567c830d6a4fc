/**
 * The central GIS API path (issue 16, spec 4.2, 5.4-5.6, 5.9): the development identity provider,
 * the central API simulator and the real Express app, all in-process on free ports, PostgreSQL of
 * the test stack for sessions. Users sign in through the IdP's real form, so every upstream call
 * carries a real RS256 access token that the simulator verifies against the IdP's JWKS.
 * Access tokens live 5 s here, so refresh happens during the suite as it does in production.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { freeLoopbackPort } from '../../domain/net/loopback';
import { Browser } from '../helpers/oidcBrowser';
import type { Store } from '../../domain/db/store';
import { listenApp } from '../helpers/appServer';

const ACCESS_TOKEN_TTL_SECONDS = 5;

let idpUrl: string;
let appUrl: string;
let centralUrl: string;
let idp: { close(): Promise<void> };
let central: { close(): Promise<void> } | undefined;
let server: http.Server;
let closePool: () => Promise<void>;
let store: Store | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function counts(base: string): Promise<Record<string, number>> {
  return ((await (await fetch(`${base}/__sim/requests`)).json()) as { counts: Record<string, number> }).counts;
}
const clearCounts = (base: string) => fetch(`${base}/__sim/requests`, { method: 'DELETE' });
const faults = (body: Record<string, unknown> | null) =>
  fetch(`${centralUrl}/__sim/faults`, body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : { method: 'DELETE' });

interface TruthFeature {
  id: string;
  layerId: string;
  siruta: number;
  objectId: number;
  cadastralRef: string;
}
async function truth(query: string): Promise<TruthFeature[]> {
  return ((await (await fetch(`${centralUrl}/__sim/truth?${query}`)).json()) as { features: TruthFeature[] }).features;
}

const browsers = new Map<string, Browser>();
/** One signed-in browser per user for the suite. */
async function as(user: 'mihai' | 'ioana' | 'radu' | 'dan'): Promise<Browser> {
  let b = browsers.get(user);
  if (!b) {
    b = new Browser(appUrl);
    await b.signIn(`${user}@birou.ro`, `parola-${user}`);
    browsers.set(user, b);
  }
  return b;
}
async function getJson(b: Browser, path: string, init: Parameters<Browser['request']>[1] = {}) {
  const res = await b.request(`${appUrl}${path}`, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

beforeAll(async () => {
  const [idpPort, appPort, centralPort] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
  idpUrl = `http://127.0.0.1:${idpPort}`;
  appUrl = `http://127.0.0.1:${appPort}`;
  centralUrl = `http://127.0.0.1:${centralPort}`;
  // config reads the environment once, at import: set it before importing anything of ours.
  process.env.OIDC_ISSUER = idpUrl;
  process.env.PUBLIC_URL = appUrl;
  process.env.PORT = String(appPort);
  process.env.CENTRAL_API_URL = centralUrl;
  // Forwarding refreshes a token with less than 2.5 s left; the middleware at 1 s (a fifth of 5 s).
  process.env.CENTRAL_API_REFRESH_MARGIN_MS = '2500';
  process.env.NODE_ENV = 'test';
  process.env.LOG_LEVEL ??= 'error';

  const { startOidcProvider } = await import('../../simulators/oidc/provider');
  const { startCentralSimulator } = await import('../../simulators/central/server');
  const { createApp } = await import('../../api/app');
  const { createStore } = await import('../../domain/db/store');
  store = createStore();
  const poolMod = await import('../../domain/db/pool');
  closePool = poolMod.closePool;

  idp = await startOidcProvider({ port: idpPort, issuer: idpUrl, host: '127.0.0.1', accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS });
  central = await startCentralSimulator({ port: centralPort, issuer: idpUrl });
  ({ server } = await listenApp(createApp({ store }), appPort));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server?.close(() => resolve());
  });
  await central?.close();
  await idp?.close();
  await store?.close();
  await closePool?.();
});

describe('common rules of the proxy routes', () => {
  it('answers 401 without a session', async () => {
    for (const [method, path] of [
      ['GET', '/api/gis/search?q=1000'],
      ['GET', '/api/gis/whoami'],
      ['GET', '/api/gis/parcela/find?siruta=1&cad=1'],
      ['POST', '/api/gis/parcel/enrich'],
      ['POST', '/api/cf/order'],
      ['GET', '/api/cf/orders'],
      ['GET', '/api/cf/cf-000001/pdf'],
    ]) {
      const res = await fetch(`${appUrl}${path}`, { method });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
  });

  it('shows the caller the claims of their own token, never the token', async () => {
    const { status, body } = await getJson(await as('mihai'), '/api/gis/whoami');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      claims: { sub: 'usr-mihai', email: 'mihai@birou.ro', enrichment_scope: 'full', aud: 'urn:geoportal:central-api', iss: idpUrl },
      enrichmentScope: 'full',
      useCentralApi: true,
    });
    expect(JSON.stringify(body)).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
  });

  it('searches with the caller’s own access token: at most 50 features, each with id, layerId, siruta, cadastral_ref and its UAT', async () => {
    await clearCounts(centralUrl);
    const { status, body } = await getJson(await as('ioana'), '/api/gis/search?q=1000');
    expect(status).toBe(200);
    expect(body.features).toHaveLength(50);
    for (const f of body.features) expect(Object.keys(f).sort()).toEqual(['cadastral_ref', 'county', 'id', 'layerId', 'siruta', 'uatName']);
    expect(body.total).toBeGreaterThan(50);
    expect((await counts(centralUrl))['caller:usr-ioana']).toBe(1);
    expect((await getJson(await as('ioana'), '/api/gis/search?q=1000&limit=51')).status).toBe(400);
  });

  // Issue 30: four "Nr. cadastral 103462" rows without their UAT; the first opened a parcel elsewhere.
  it('names each hit’s UAT from the local catalogue and keeps one UAT’s hits when asked', async () => {
    const { getPool } = await import('../../domain/db/pool');
    const all = (await getJson(await as('mihai'), '/api/gis/search?q=1000')).body.features as Array<{ siruta: number; uatName: string | null; county: string | null }>;
    const sirutas = [...new Set(all.map((f) => f.siruta))];
    expect(sirutas.length).toBeGreaterThan(1);
    // The catalogue of this store may lack these UATs: plant the two first as a catalogue refresh would.
    const planted = await getPool().query<{ siruta: number }>(
      `INSERT INTO gis_uats (siruta, name, county) VALUES ($1, 'Însurăței Probă Centrală', 'Brăila'), ($2, 'Comandău Probă Centrală', 'Covasna')
       ON CONFLICT (siruta) DO NOTHING RETURNING siruta`,
      [sirutas[0], sirutas[1]],
    );
    try {
      const named = (await getJson(await as('mihai'), '/api/gis/search?q=1000')).body.features as typeof all;
      const names = await getPool().query<{ siruta: number; name: string; county: string | null }>(`SELECT siruta, name, county FROM gis_uats WHERE siruta = ANY($1::int[])`, [sirutas]);
      const byS = new Map(names.rows.map((r) => [r.siruta, r]));
      for (const f of named) expect([f.siruta, f.uatName, f.county]).toEqual([f.siruta, byS.get(f.siruta)?.name ?? null, byS.get(f.siruta)?.county ?? null]);
      expect(named.filter((f) => f.siruta === sirutas[0]).every((f) => f.uatName)).toBe(true);

      const one = await getJson(await as('mihai'), `/api/gis/search?q=1000&siruta=${sirutas[1]}`);
      expect(one.status).toBe(200);
      expect(one.body.features.length).toBe(all.filter((f) => f.siruta === sirutas[1]).length);
      expect(one.body.features.every((f: { siruta: number }) => f.siruta === sirutas[1])).toBe(true);
    } finally {
      if (planted.rows.length) await getPool().query(`DELETE FROM gis_uats WHERE siruta = ANY($1::int[])`, [planted.rows.map((r) => r.siruta)]);
    }
  });

  it('forwards the upstream status, error code and body', async () => {
    const b = await as('mihai');
    await faults({ errorRate: 1 });
    const failing = await getJson(b, '/api/gis/search?q=1000');
    await faults({ maintenance: true });
    const maintenance = await getJson(b, '/api/gis/search?q=1000');
    await faults(null);
    expect(failing).toMatchObject({ status: 500, body: { error: 'Internal Server Error', message: 'Eroare internă simulată' } });
    expect(maintenance.status).toBe(503);
    expect(maintenance.body).toMatchObject({ error: 'upstream_error' });
    expect(maintenance.body.hint).toContain('mentenanță');
    // The upstream's own 404 for the route it does not have (spec 9.1).
    const [hit] = await truth('cadastralRef=1000');
    const missing = await getJson(b, `/api/gis/parcela/${hit.id.replace(/^.{8}/, '00000000')}`);
    expect(missing).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });
});

describe('parcels', () => {
  it('reads a parcel by uuid; scope basic sees no personal data, full does after the enrichment round trip', async () => {
    const [parcel] = await truth('cadastralRef=1000');
    const mihai = await as('mihai');
    const ioana = await as('ioana');
    await clearCounts(centralUrl);
    const first = await getJson(mihai, '/api/gis/parcel/enrich', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000' } });
    const again = await getJson(mihai, '/api/gis/parcel/enrich', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000' } });
    expect(first.status).toBe(200);
    expect(first.body.cached).toBe(false);
    expect(again.body.cached).toBe(true);
    expect(await counts(centralUrl)).toMatchObject({ 'enrich:landreg': 1, 'enrich:cache': 1 });
    expect(first.body.feature.enrichment.PROPRIETARI).toEqual(expect.any(String));
    expect(first.body.feature.enrichment.NR_CF).toEqual(expect.any(String));

    const full = await getJson(mihai, `/api/gis/parcela/${parcel.id}`);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ id: parcel.id, siruta: parcel.siruta, cadastralRef: '1000', layerId: 'TERENURI_ACTIVE' });
    expect(full.body.geometry.type).toBe('Polygon');
    expect(full.body.enrichment.PROPRIETARI).toBe(first.body.feature.enrichment.PROPRIETARI);

    const basic = await getJson(ioana, `/api/gis/parcela/${parcel.id}`);
    expect(basic.status).toBe(200);
    for (const key of ['NR_CF', 'ADRESA', 'PROPRIETARI', 'PROPRIETARI_VECHI', 'SOLICITANT', 'DOC']) expect(basic.body.enrichment[key]).toBeNull();
    expect(basic.body.enrichment.NR_CAD).toBe('1000');
    expect((await getJson(ioana, '/api/gis/parcela/not-a-uuid')).status).toBe(400);
  });

  it('answers the upstream 403 to a caller without the enrichment_scope claim', async () => {
    const [parcel] = await truth('cadastralRef=1000');
    const res = await getJson(await as('radu'), `/api/gis/parcela/${parcel.id}`);
    expect(res).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
  });

  it('serves technical data, units and condominium owners (owners hidden for scope basic)', async () => {
    const [building] = (await truth('siruta=' + (await truth('cadastralRef=1000'))[0].siruta)).filter((f) => f.layerId === 'CLADIRI_ACTIVE');
    const [parcel] = await truth('cadastralRef=1000');
    const tech = await getJson(await as('mihai'), '/api/gis/parcel/tech', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000', force: true } });
    expect(tech.status).toBe(200);
    expect(tech.body).toMatchObject({ siruta: parcel.siruta, cadastralRef: '1000', refreshedAt: expect.any(String) });
    const ref = { siruta: building.siruta, cadastralRef: building.cadastralRef };
    const units = await getJson(await as('mihai'), '/api/gis/parcel/units-fetch', { method: 'POST', json: ref });
    expect(units.status).toBe(200);
    expect(units.body.units.length).toBeGreaterThanOrEqual(2);
    const full = await getJson(await as('mihai'), '/api/gis/building/condo-owners', { method: 'POST', json: ref });
    const basic = await getJson(await as('ioana'), '/api/gis/building/condo-owners', { method: 'POST', json: ref });
    expect(full.body.units[0]).toMatchObject({ owners: expect.any(String), nrCF: expect.any(String), area: expect.any(Number) });
    expect(basic.body.units[0]).toMatchObject({ owners: null, nrCF: null, area: full.body.units[0].area });
  });
});

describe('parcela/find rules (spec 4.2)', () => {
  it('rule 1: finds the parcel of the asked UAT and layer among the search hits', async () => {
    const hits = await truth('cadastralRef=1000');
    const target = hits[3];
    const res = await getJson(await as('mihai'), `/api/gis/parcela/find?siruta=${target.siruta}&cad=1000&layerId=TERENURI_ACTIVE`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ siruta: target.siruta, cadastralRef: '1000', layerId: 'TERENURI_ACTIVE' });
  });

  it('rule 2: 422 search_limit_exceeded when 50 hits share the reference and none is in the asked UAT', async () => {
    const hits = await truth('cadastralRef=1000');
    const firstPage = new Set(hits.slice(0, 50).map((h) => h.siruta));
    const outside = hits.slice(50).find((h) => !firstPage.has(h.siruta))!;
    expect(outside).toBeDefined();
    const res = await getJson(await as('mihai'), `/api/gis/parcela/find?siruta=${outside.siruta}&cad=1000`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'search_limit_exceeded', hint: expect.stringContaining('siruta filter') });
  });

  it('rule 3: 403 scope_insufficient when every candidate is forbidden', async () => {
    const [target] = await truth('cadastralRef=1000');
    const res = await getJson(await as('radu'), `/api/gis/parcela/find?siruta=${target.siruta}&cad=1000`);
    expect(res).toMatchObject({ status: 403, body: { error: 'scope_insufficient' } });
  });

  it('rule 4: 404 otherwise (no hit, or fewer than 50 hits elsewhere)', async () => {
    const b = await as('mihai');
    expect((await getJson(b, '/api/gis/parcela/find?siruta=42682&cad=nu-exista-0')).body).toMatchObject({ error: 'not_found' });
    const [somewhere] = (await truth('siruta=42682')).filter((f) => f.cadastralRef !== '1000' && f.layerId === 'TERENURI_ACTIVE');
    const elsewhere = await getJson(b, `/api/gis/parcela/find?siruta=179588&cad=${somewhere.cadastralRef}`);
    expect(elsewhere.status).toBe(404);
    // The building layer is asked for, only a parcel carries the reference.
    const wrongLayer = await getJson(b, `/api/gis/parcela/find?siruta=42682&cad=${somewhere.cadastralRef}&layerId=CLADIRI_ACTIVE`);
    expect(wrongLayer.status).toBe(404);
  });
});

describe('CF extracts on the central path', () => {
  it('orders, follows the order to completion, downloads the PDF by its document name, and gets catalog_hit on a repeat', async () => {
    const hits = await truth('cadastralRef=1000');
    const parcel = hits[5];
    const b = await as('mihai');
    const order = await getJson(b, '/api/cf/order', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000' } });
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({ status: 'processing', version: 1 });
    const id = order.body.id as string;
    let current = order.body;
    for (let i = 0; i < 5 && current.status !== 'completed'; i++) current = (await getJson(b, `/api/cf/${id}`)).body;
    expect(current).toMatchObject({ status: 'completed', expiresAt: expect.any(String), documentName: null });

    // No document name yet: cf-<id>.pdf.
    const pdf = await b.request(`${appUrl}/api/cf/${id}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toContain(`filename="cf-${id}.pdf"`);
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    const renamed = await getJson(b, `/api/cf/${id}`, { method: 'PATCH', json: { documentName: 'Extras CF 1000 Întorsura.pdf' } });
    expect(renamed.body.documentName).toBe('Extras CF 1000 Întorsura.pdf');
    const named = await b.request(`${appUrl}/api/cf/${id}/pdf`);
    expect(named.headers.get('content-disposition')).toBe(
      `attachment; filename="Extras CF 1000 Intorsura.pdf"; filename*=UTF-8''${encodeURIComponent('Extras CF 1000 Întorsura.pdf')}`,
    );
    await named.arrayBuffer();
    const cancel = await getJson(b, `/api/cf/${id}`, { method: 'PATCH', json: { status: 'cancelled' } });
    expect(cancel).toMatchObject({ status: 409, body: { error: 'invalid_state' } });

    // A viewer without the personal-data right may not order (an extract names the owners, CONTRACT 6).
    const refused = await getJson(await as('ioana'), '/api/cf/order', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000' } });
    expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    // A repeat: the valid extract answers 409 catalog_hit, unchanged.
    const repeat = await getJson(b, '/api/cf/order', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000' } });
    expect(repeat.status).toBe(409);
    expect(repeat.body).toMatchObject({ error: 'catalog_hit', message: expect.stringContaining('valabil'), extract: { id, status: 'completed' } });
    const forced = await getJson(b, '/api/cf/order', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000', force: true } });
    expect(forced.body.version).toBe(2);

    const catalog = await getJson(b, '/api/cf/catalog');
    expect(catalog.body.items).toEqual(expect.arrayContaining([expect.objectContaining({ orderId: id, cadastralRef: '1000' })]));
    const mine = await getJson(b, '/api/cf/orders?limit=10&status=completed');
    expect(mine.body.items.map((o: { id: string }) => o.id)).toContain(id);
    // A completed extract is in the shared catalog, but not for a viewer without the personal-data
    // right (ioana, scope basic; radu, no claim); someone else's order in progress is not hers (the upstream's 404).
    expect((await b.request(`${appUrl}/api/cf/${id}/pdf`)).status).toBe(200);
    for (const user of ['ioana', 'radu'] as const) {
      expect(await getJson(await as(user), `/api/cf/${id}/pdf`)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    }
    expect((await getJson(await as('ioana'), `/api/cf/${forced.body.id}`)).status).toBe(404);
    // A processing order has no PDF yet: the upstream's 409.
    expect((await getJson(b, `/api/cf/${forced.body.id}/pdf`)).body).toMatchObject({ error: 'not_ready' });
  });

  it('refuses a second order of a parcel whose order is still processing: 409 order_in_progress with its id, force or not', async () => {
    const parcel = (await truth('cadastralRef=1000'))[7];
    const first = await getJson(await as('mihai'), '/api/cf/order', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000' } });
    expect(first).toMatchObject({ status: 201, body: { status: 'processing' } });
    for (const force of [false, true]) {
      const again = await getJson(await as('mihai'), '/api/cf/order', { method: 'POST', json: { siruta: parcel.siruta, cadastralRef: '1000', force } });
      expect(again).toMatchObject({ status: 409, body: { error: 'order_in_progress', orderId: first.body.id, message: expect.stringContaining('în lucru') } });
    }
    // The office's portal account is never used for a pilot user.
    const office = await getJson(await as('mihai'), '/api/cfportal/order', { method: 'POST', json: { nrCadastral: '1000', siruta: parcel.siruta } });
    expect(office).toMatchObject({ status: 410, body: { error: 'gone_central_api' } });
  });
});

describe('the scope rule (seed 5.5): a token without enrichment_scope', () => {
  it('gets 403 insufficient_scope with a Romanian reason from every central route, the search included (CF extracts: refused before the call)', async () => {
    const radu = await as('radu');
    const [parcel] = await truth('cadastralRef=1000');
    const ref = { siruta: parcel.siruta, cadastralRef: '1000' };
    for (const [method, path, json] of [
      ['GET', '/api/gis/search?q=1000', undefined],
      ['GET', `/api/gis/parcela/${parcel.id}`, undefined],
      ['POST', '/api/gis/parcel/tech', ref],
      ['POST', '/api/gis/parcel/enrich', ref],
      ['GET', '/api/cf/orders', undefined],
      ['GET', '/api/cf/catalog', undefined],
      ['GET', '/api/cf/cf-000001', undefined],
    ] as const) {
      const res = await getJson(radu, path, { method, json });
      expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 403, error: 'insufficient_scope' });
      expect(res.body.message).toContain('enrichment_scope');
    }
    // Ordering and downloading an extract need the personal-data right (CONTRACT 6): our own 403, no central call.
    const before = (await counts(centralUrl))['caller:usr-radu'] ?? 0;
    for (const [method, path, json] of [
      ['POST', '/api/cf/order', ref],
      ['GET', '/api/cf/cf-000001/pdf', undefined],
    ] as const) {
      const res = await getJson(radu, path, { method, json });
      expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 403, error: 'forbidden' });
    }
    expect((await counts(centralUrl))['caller:usr-radu'] ?? 0).toBe(before);
    // A token with the claim searches as before.
    expect((await getJson(await as('mihai'), '/api/gis/search?q=1000')).status).toBe(200);
  });
});

describe('flags and the legacy write gate (spec 5.6, 5.9)', () => {
  it('answers 410 to a central-API user on auto-refresh before asking for the cron token; 401 to others', async () => {
    const mihai = await getJson(await as('mihai'), '/api/landreg/auto-refresh', { method: 'POST' });
    expect(mihai).toMatchObject({ status: 410, body: { error: 'gone_central_api' } });
    const dan = await getJson(await as('dan'), '/api/landreg/auto-refresh', { method: 'POST' });
    expect(dan.status).toBe(401);
    const sync = await getJson(await as('radu'), '/api/landreg/sync', { method: 'POST', json: { nonsense: true } });
    expect(sync).toMatchObject({ status: 410, body: { error: 'gone_central_api' } });
  });
});

describe('access tokens on the central path (spec 5.4)', () => {
  it('20 concurrent requests with an expired access token make exactly one refresh at the identity provider', async () => {
    const b = new Browser(appUrl);
    await b.signIn('mihai@birou.ro', 'parola-mihai');
    await sleep(ACCESS_TOKEN_TTL_SECONDS * 1000 + 300);
    await clearCounts(idpUrl);
    await clearCounts(centralUrl);
    const answers = await Promise.all(Array.from({ length: 20 }, () => getJson(b, '/api/gis/search?q=1000&limit=5')));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const idpCounts = await counts(idpUrl);
    expect({ refreshes: idpCounts['token:refresh_token'] ?? 0, failures: idpCounts['token:refresh_token:error'] ?? 0 }).toEqual({ refreshes: 1, failures: 0 });
    // Every call reached the central API with a valid token (none was refused).
    expect((await counts(centralUrl))['caller:usr-mihai']).toBe(20);
  });

  it('refreshes before forwarding a token about to expire', async () => {
    const b = new Browser(appUrl);
    await b.signIn('ioana@birou.ro', 'parola-ioana');
    await clearCounts(idpUrl);
    // 5 s token: after 3 s it has about 2 s left, less than the forwarding margin (2.5 s) but not
    // yet at the session middleware's refresh moment (1 s before expiry).
    await sleep(3000);
    const res = await getJson(b, '/api/gis/search?q=1000&limit=1');
    expect(res.status).toBe(200);
    expect((await counts(idpUrl))['token:refresh_token']).toBe(1);
  });

  it('retries once with a fresh token after an upstream 401, and forwards a second 401', async () => {
    const b = await as('mihai');
    await getJson(b, '/api/gis/search?q=1000&limit=1');
    await clearCounts(idpUrl);
    await clearCounts(centralUrl);
    await fetch(`${centralUrl}/__sim/reject-tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1 }) });
    const once = await getJson(b, '/api/gis/search?q=1000&limit=1');
    expect(once.status).toBe(200);
    expect((await counts(idpUrl))['token:refresh_token']).toBe(1);
    expect((await counts(centralUrl))['route:GET /api/v1/search']).toBe(2);

    await fetch(`${centralUrl}/__sim/reject-tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 2 }) });
    const twice = await getJson(b, '/api/gis/search?q=1000&limit=1');
    expect(twice).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });
});

describe('slow and absent upstream', () => {
  it('answers 504 upstream_timeout when the central API takes longer than 30 s', async () => {
    const b = await as('mihai');
    await faults({ latencyMs: 31_000 });
    try {
      const res = await getJson(b, '/api/gis/search?q=1000');
      expect(res).toMatchObject({ status: 504, body: { error: 'upstream_timeout' } });
    } finally {
      await faults(null);
    }
  }, 90_000);

  it('a central call whose client left is stopped at once, not waited out (outside_calls_total counts it aborted)', async () => {
    const b = await as('ioana');
    const { outsideCalls } = await import('../../domain/metrics');
    const count = async (outcome: string) => (await outsideCalls.get()).values.find((v) => v.labels.service === 'central' && v.labels.outcome === outcome)?.value ?? 0;
    await faults({ latencyMs: 4000 });
    try {
      const [aborted, ok] = [await count('aborted'), await count('ok')];
      const leave = new AbortController();
      const cookie = `cgp_session=${b.cookie(appUrl, 'cgp_session')}`;
      const asked = fetch(`${appUrl}/api/gis/search?q=1000`, { headers: { cookie }, signal: leave.signal }).catch(() => 'left');
      await sleep(500);
      leave.abort();
      expect(await asked).toBe('left');
      // Well before the central API would have answered (4 s): the call was stopped, not awaited.
      const end = Date.now() + 2500;
      while ((await count('aborted')) === aborted && Date.now() < end) await sleep(50);
      expect(await count('aborted')).toBe(aborted + 1);
      expect(await count('ok')).toBe(ok);
    } finally {
      await faults(null);
    }
  });

  it('answers 401 after a failed refresh, and 500 internal_error with a hint when the central API is down', async () => {
    const b = new Browser(appUrl);
    await b.signIn('mihai@birou.ro', 'parola-mihai');
    await central?.close();
    central = undefined;
    const down = await getJson(b, '/api/gis/search?q=1000');
    expect(down.status).toBe(500);
    expect(down.body).toMatchObject({ error: 'internal_error', hint: expect.stringContaining('central API unreachable') });
    expect(down.body.hint.length).toBeLessThanOrEqual(200);

    // The IdP forgets every grant: the session's refresh token is now worthless.
    await fetch(`${idpUrl}/__sim/reset`, { method: 'POST' });
    await sleep(ACCESS_TOKEN_TTL_SECONDS * 1000 + 300);
    const res = await getJson(b, '/api/gis/search?q=1000');
    expect(res).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
  });
});
