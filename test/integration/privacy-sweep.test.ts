/**
 * The viewer rule on every route (issue 13, deliverables 1 and 7): every GET route of the
 * OpenAPI document, the POST routes that answer parcel data or files, and the web pages are asked,
 * as restricted users, about a planted enriched parcel whose owners and address are known. No
 * answer may carry them: elena (basic panel), ioana (scope basic), radu (no scope claim) and an
 * administrator with scope basic (debug-fields is admin-only AND redacted). dan (scope full) is
 * the positive control: the same needles are found in his answers, so the sweep can see a leak.
 *
 * Runs against the running stack (API and Remix UI of the same process), with sessions and data
 * in its database; siruta range 990400-990499.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { closePool, getPool } from '../../domain/db/pool';
import { E2E_BASE_URL } from '../helpers/e2e';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { plantGeoportalFixtures, removeGeoportalFixtures, type GeoportalFixture } from '../helpers/geoportalFixtures';

const run = promisify(execFile);
const SIRUTA_BASE = 990400;
const base = E2E_BASE_URL;

/** What the planted parcel's personal fields hold (test/helpers/geoportalFixtures.ts), folded; the old CF number too (CONTRACT 6). */
const NEEDLES = ['STEFANESCU ION', 'POPESCU MARIA', 'IONESCU GHEORGHE', 'STR. FLORILOR', 'CFV-PROBA-44178'];

const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase();
const leaks = (text: string) => NEEDLES.filter((n) => fold(text).includes(n));

let fx: GeoportalFixture;
let tmp: string;
let dan: TestSession;
const restricted: Record<string, TestSession> = {};

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** The answer as text; ZIP answers are unpacked and every entry (CSV, GPKG bytes) read. */
async function read(res: Response, name: string): Promise<Answer> {
  const buf = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get('content-type') ?? '';
  let text = buf.toString('utf8');
  if (contentType.includes('zip') || buf.subarray(0, 2).toString('latin1') === 'PK') {
    // The users run side by side and may fetch the same URL at once: one file per answer.
    const file = path.join(tmp, `${name.replace(/[^a-z0-9]+/gi, '_')}_${randomUUID()}.zip`);
    await fs.writeFile(file, buf);
    const { stdout } = await run('unzip', ['-p', file], { maxBuffer: 512 * 1024 * 1024, encoding: 'buffer' });
    text = (stdout as unknown as Buffer).toString('utf8');
  }
  return { status: res.status, contentType, text };
}

async function call(method: string, pathAndQuery: string, who: TestSession, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${pathAndQuery}`, {
    method,
    redirect: 'manual',
    headers: { cookie: who.cookie, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return read(res, `${method}${pathAndQuery}`);
}

/** A z14 tile over the planted UAT. */
function tileOf([lon, lat]: [number, number], z: number): [number, number, number] {
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const r = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  return [z, x, y];
}

/** A value for each parameter name the document uses, aimed at the planted parcel. */
function valueFor(name: string): string {
  const [z, x, y] = tileOf(fx.centre, 14);
  const values: Record<string, string> = {
    siruta: String(fx.uatA.siruta),
    cadRef: fx.enriched.cadastralRef,
    nrCad: fx.enriched.cadastralRef,
    id: fx.enriched.id,
    objectId: String(fx.enriched.objectId),
    layerId: 'TERENURI_ACTIVE',
    q: 'POPESCU',
    name: 'POPESCU',
    source: 'gis_terenuri',
    z: String(z),
    x: String(x),
    y: String(y),
    limit: '100',
    offset: '0',
    jobId: `export-bundle:${fx.uatA.siruta}`,
    // OGC API Features (/ogc): the planted parcel by id, and a page around it.
    collectionId: 'parcels',
    featureId: fx.enriched.id,
    cadastral_ref: fx.enriched.cadastralRef,
    bbox: `${fx.centre[0] - 0.2},${fx.centre[1] - 0.2},${fx.centre[0] + 0.2},${fx.centre[1] + 0.2}`,
    crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
    'bbox-crs': 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
    datetime: '2000-01-01T00:00:00Z/..',
    cursor: 'a0_0',
    f: 'json',
  };
  return values[name] ?? '1';
}

type OpenApi = { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; required?: boolean }> }>> };

/** Every GET route of the document, with its path and query filled for the planted parcel. */
async function getRoutes(): Promise<string[]> {
  const doc = JSON.parse((await call('GET', '/api/openapi.json', dan)).text) as OpenApi;
  const urls: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    const op = ops.get;
    if (!op) continue;
    const params = op.parameters ?? [];
    const filled = p.replace(/\{([^}]+)\}/g, (_m, n: string) => encodeURIComponent(valueFor(n)));
    const query = params.filter((q) => q.in === 'query').map((q) => `${q.name}=${encodeURIComponent(valueFor(q.name))}`);
    urls.push(query.length ? `${filled}?${query.join('&')}` : filled);
  }
  return urls;
}

/** The POST routes that answer parcel data or files built from it. */
function postRoutes(): Array<[string, unknown]> {
  const siruta = fx.uatA.siruta;
  return [
    ['/api/landreg/search-owner', { name: 'POPESCU', siruta }],
    ['/api/landreg/search', { siruta, cadastralNumbers: fx.enriched.cadastralRef, workspacePk: 13 }],
    ['/api/geoportal/export', { format: 'csv', featureIds: [fx.enriched.id] }],
    ['/api/geoportal/export', { format: 'gpkg', featureIds: [fx.enriched.id] }],
    ['/api/geoportal/export', { format: 'geojson', featureIds: [fx.enriched.id] }],
    ['/api/landreg/export-local', { siruta, mode: 'magic' }],
    ['/api/landreg/export-local', { siruta, mode: 'base' }],
  ];
}

/** The pages whose loaders read parcels, with the planted parcel in their query. */
function webRoutes(): string[] {
  const s = fx.uatA.siruta;
  return [
    '/',
    '/geoportal',
    `/parcel-sync?tab=search&siruta=${s}&cad=${encodeURIComponent(fx.enriched.cadastralRef)}&owner=POPESCU`,
    `/parcel-sync?tab=sync&siruta=${s}`,
    `/parcel-sync/parcel/${fx.enriched.id}`,
    `/parcel-sync/dashboard?siruta=${s}`,
    `/parcel-sync/export?siruta=${s}`,
    `/parcel-sync?tab=epay&siruta=${s}&cad=${encodeURIComponent(fx.enriched.cadastralRef)}`,
    '/parcel-sync/weekend',
    '/infrastructura-harti',
    '/registratura',
    '/rgi',
    '/notificari',
    '/utilitare',
  ];
}

beforeAll(async () => {
  fx = await plantGeoportalFixtures(getPool(), { sirutaBase: SIRUTA_BASE, centre: [24.1, 45.8], nameA: 'Sweep Probă', nameB: 'Sweep Vecin' });
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'privacy-sweep-'));
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U', enrichmentScope: 'full' });
  restricted['elena (basic panel)'] = await createTestSessionRecord({ email: 'elena@birou.ro', company: 'B', enrichmentScope: 'full' });
  restricted['ioana (scope basic)'] = await createTestSessionRecord({ email: 'ioana@birou.ro', company: 'S', enrichmentScope: 'basic' });
  restricted['radu (no scope claim)'] = await createTestSessionRecord({ email: 'radu@birou.ro', company: 'B', enrichmentScope: null });
  restricted['admin with scope basic'] = await createTestSessionRecord({ email: 'ana@birou.ro', company: 'B', groups: ['admin'], enrichmentScope: 'basic' });
  expect(restricted['elena (basic panel)'].data.flags.basicPanel).toBe(true);
  expect(restricted['admin with scope basic'].data.flags.isAdmin).toBe(true);
});

afterAll(async () => {
  await Promise.allSettled([dan?.end(), ...Object.values(restricted).map((s) => s.end())]);
  await removeGeoportalFixtures(getPool(), SIRUTA_BASE);
  await fs.rm(tmp, { recursive: true, force: true });
  await closePool();
});

describe('the sweep can see a leak', () => {
  it('a full-scope user finds the owners in the feature, the parcel page and the local export', async () => {
    const feature = await call('GET', `/api/geoportal/feature?id=${fx.enriched.id}`, dan);
    expect(leaks(feature.text)).toEqual(expect.arrayContaining(['STEFANESCU ION', 'POPESCU MARIA', 'CFV-PROBA-44178']));
    const page = await call('GET', `/parcel-sync/parcel/${fx.enriched.id}`, dan);
    expect(page.status).toBe(200);
    expect(leaks(page.text)).toEqual(expect.arrayContaining(['POPESCU MARIA', 'CFV-PROBA-44178']));
    const zip = await call('POST', '/api/landreg/export-local', dan, { siruta: fx.uatA.siruta, mode: 'magic' });
    expect(zip.status).toBe(200);
    expect(leaks(zip.text)).toEqual(expect.arrayContaining(['POPESCU MARIA', 'CFV-PROBA-44178']));
    const ogc = await call('GET', `/ogc/collections/parcels/items/${fx.enriched.id}`, dan);
    expect(ogc.status).toBe(200);
    expect(leaks(ogc.text)).toEqual(expect.arrayContaining(['POPESCU MARIA', 'CFV-PROBA-44178']));
    const exported = await call('POST', '/api/geoportal/export', dan, { format: 'geojson', featureIds: [fx.enriched.id] });
    expect(leaks(exported.text)).toContain('CFV-PROBA-44178');
  });

  it('debug-fields is for administrators only', async () => {
    const r = await call('GET', `/api/landreg/debug-fields?siruta=${fx.uatA.siruta}&cadRef=${fx.enriched.cadastralRef}`, dan);
    expect(r.status).toBe(403);
  });
});

describe('no answer carries personal data to a restricted user', () => {
  it('every GET route of the OpenAPI document', async () => {
    const urls = await getRoutes();
    expect(urls).toEqual(
      expect.arrayContaining([
        expect.stringContaining('/api/geoportal/feature'),
        expect.stringContaining('/api/landreg/debug-fields'),
        expect.stringContaining(`/ogc/collections/parcels/items/${fx.enriched.id}`),
        expect.stringContaining('/ogc/collections/parcels/items?'),
      ]),
    );
    const found: string[] = [];
    // The users side by side (each one's routes in turn): over a hundred routes each.
    await Promise.all(
      Object.entries(restricted).map(async ([who, session]) => {
        for (const url of urls) {
          const a = await call('GET', url, session);
          expect(a.status).toBeLessThan(500);
          // Signed in for real: the parcel is answered (redacted), not refused wholesale.
          if (url.startsWith('/api/geoportal/feature') || url.startsWith('/ogc/collections/parcels/items')) expect([url, a.status]).toEqual([url, 200]);
          for (const n of leaks(a.text)) found.push(`${who}: GET ${url} → ${a.status} carries ${n}`);
        }
      }),
    );
    expect(found).toEqual([]);
  }, 300_000);

  it('the POST routes answering parcel data, and the exported files (CSV, GPKG, GeoJSON)', async () => {
    const found: string[] = [];
    for (const [who, session] of Object.entries(restricted)) {
      for (const [url, body] of postRoutes()) {
        const a = await call('POST', url, session, body);
        for (const n of leaks(a.text)) found.push(`${who}: POST ${url} ${JSON.stringify(body)} → ${a.status} carries ${n}`);
      }
    }
    expect(found).toEqual([]);
  }, 180_000);

  it('a restricted user still gets the local export, with the personal columns present and empty', async () => {
    const zip = await call('POST', '/api/landreg/export-local', restricted['radu (no scope claim)'], { siruta: fx.uatA.siruta, mode: 'magic' });
    expect(zip.status).toBe(200);
    expect(zip.text).toContain('PROPRIETARI_ACTUALI');
    expect(zip.text).toContain('NR_CF_VECHI');
    expect(zip.text).toContain('Date personale');
    expect(leaks(zip.text)).toEqual([]);
  });

  it('no CF extract is ordered or downloaded by a restricted user, on either path; the tab offers none', async () => {
    const siruta = fx.uatA.siruta;
    const cad = fx.enriched.cadastralRef;
    for (const [who, session] of Object.entries(restricted)) {
      const central = session.data.flags.useCentralApi;
      const doors: Array<[string, string, unknown, number]> = [
        // A central-API user is told first that the legacy route is gone for them (CONTRACT 1).
        ['POST', '/api/cfportal/order', { nrCadastral: cad, siruta }, central ? 410 : 403],
        ['GET', '/api/cfportal/download?id=00000000-0000-4000-8000-000000000000', undefined, 403],
        ['POST', '/api/cf/order', { siruta, cadastralRef: cad }, 403],
        ['GET', '/api/cf/ord-1/pdf', undefined, 403],
      ];
      for (const [method, url, body, status] of doors) {
        const a = await call(method, url, session, body);
        const error = a.status === 403 ? (JSON.parse(a.text) as { error: string }).error : null;
        expect(`${who}: ${method} ${url} → ${a.status}${error ? ` ${error}` : ''}`).toBe(`${who}: ${method} ${url} → ${status}${status === 403 ? ' forbidden' : ''}`);
      }
      const tab = await call('GET', `/parcel-sync?tab=epay&siruta=${siruta}&cad=${encodeURIComponent(cad)}`, session);
      expect(tab.status).toBe(200);
      expect(tab.text).toContain('data-testid="cf-restricted-notice"');
      expect(tab.text).not.toContain('data-testid="epay"');
    }
    // Without a session the door is 401 as everywhere; a full viewer passes the check (404: no such extract).
    expect((await fetch(`${base}/api/cfportal/download?id=00000000-0000-4000-8000-000000000000`)).status).toBe(401);
    expect((await call('GET', '/api/cfportal/download?id=00000000-0000-4000-8000-000000000000', dan)).status).toBe(404);
    const tab = await call('GET', `/parcel-sync?tab=epay&siruta=${siruta}`, dan);
    expect(tab.text).not.toContain('cf-restricted-notice');
  });

  it('every web page whose loader reads parcels', async () => {
    const found: string[] = [];
    for (const [who, session] of Object.entries(restricted)) {
      for (const url of webRoutes()) {
        const a = await call('GET', url, session);
        expect(a.status).toBeLessThan(500);
        for (const n of leaks(a.text)) found.push(`${who}: page ${url} → ${a.status} carries ${n}`);
      }
    }
    expect(found).toEqual([]);
  }, 180_000);
});
