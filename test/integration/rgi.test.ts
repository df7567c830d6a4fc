/**
 * RGI routes (spec 4.4) against the land-registry simulator's RGI part over HTTP, through the
 * real app and the shared portal session: applications of a county's organisation unit, details,
 * issued documents, and the download (actor context, confirm view, PDF named
 * `<docType>_<appNo>.pdf` without diacritics, `{blocked:true}` while not ready).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import http from 'node:http';
import type pg from 'pg';
import { config } from '../../domain/config';
import { closePool, createPool } from '../../domain/db/pool';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import { Nomenclature } from '../../simulators/landreg/nomenclature';
import { COUNTIES } from '../../domain/landreg/counties';
import { pdfText } from '../helpers/cfStack';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { createApp } from '../../api/app';
import { storeOn, type Store } from '../../domain/db/store';
import { listenApp } from '../helpers/appServer';

let store: Store;

let sim: LandregSimulator;
let db: pg.Pool;
let server: http.Server;
let base: string;
let dan: TestSession;
let elena: TestSession;
let ioana: TestSession;
let workspaceId: number;
const YEAR = 2024;

async function call(p: string, opts: { body?: unknown; as?: TestSession } = {}) {
  const headers: Record<string, string> = { cookie: (opts.as ?? dan).cookie };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${p}`, { method: opts.body === undefined ? 'GET' : 'POST', headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const raw = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(raw.toString('utf8')) : null;
  return { status: res.status, headers: res.headers, raw, body: json };
}

/** Every issued document of the county's applications of YEAR, through our routes. */
async function allDocs(): Promise<Array<{ applicationId: number; doc: any }>> {
  const apps = await call('/api/landreg/rgi/applications', { body: { workspaceId, year: YEAR, size: 100 } });
  const out: Array<{ applicationId: number; doc: any }> = [];
  for (const a of apps.body.items) {
    const d = await call(`/api/landreg/rgi/issued-docs?applicationId=${a.applicationId}&workspaceId=${workspaceId}`);
    for (const doc of d.body.items) out.push({ applicationId: a.applicationId, doc });
  }
  return out;
}

beforeAll(async () => {
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
  db = createPool(config.db.url, 4);
  store = storeOn(db);
  ({ server, base } = await listenApp(createApp({ store, outside: { landregBaseUrl: sim.url } })));
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U', db });
  elena = await createTestSessionRecord({ email: 'elena@birou.ro', company: 'B', db });
  ioana = await createTestSessionRecord({ email: 'ioana@birou.ro', company: 'S', enrichmentScope: 'basic', db });
  workspaceId = ((await (await fetch(`${sim.url}/__sim/truth`)).json()) as { uats: Array<{ workspaceId: number }> }).uats[0].workspaceId;
}, 120_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await Promise.allSettled([dan?.end(), elena?.end(), ioana?.end()]);
  await db?.end();
  await sim?.close();
  await store?.close();
  await closePool();
});

describe('RGI', () => {
  test('applications of a county and year are asked of its organisation unit countyId * 1000 + 2', async () => {
    const r = await call('/api/landreg/rgi/applications', { body: { workspaceId, year: YEAR } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ workspaceId, orgUnitId: workspaceId * 1000 + 2, year: YEAR, page: 0 });
    expect(r.body.total).toBeGreaterThan(0);
    expect(r.body.items[0]).toMatchObject({ workspaceId, orgUnitId: workspaceId * 1000 + 2 });
    expect(typeof r.body.items[0].applicant).toBe('string');
    const details = await call(`/api/landreg/rgi/details?applicationId=${r.body.items[0].applicationId}`);
    expect(details.body).toMatchObject({ applicationId: r.body.items[0].applicationId, applicationNo: r.body.items[0].applicationNo });
    expect(details.body.history.length).toBeGreaterThan(0);
  });

  test('the basic panel sees no applicant names', async () => {
    const r = await call('/api/landreg/rgi/applications', { body: { workspaceId, year: YEAR }, as: elena });
    expect(r.body.items.every((a: any) => a.applicant === null)).toBe(true);
    const d = await call(`/api/landreg/rgi/details?applicationId=${r.body.items[0].applicationId}`, { as: elena });
    expect(d.body.applicant).toBeNull();
  });

  test('a ready document downloads as <docType>_<appNo>.pdf without diacritics; one not ready answers {blocked:true}', async () => {
    const docs = await allDocs();
    const ready = docs.find((d) => d.doc.available && /[ăâîșțĂÂÎȘȚ]/.test(d.doc.documentType))!;
    const notReady = docs.find((d) => !d.doc.available)!;
    expect(ready).toBeDefined();
    expect(notReady).toBeDefined();

    const ok = await call(`/api/landreg/rgi/download-doc?wid=${workspaceId}&aid=${ready.applicationId}&did=${ready.doc.documentPk}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/pdf');
    const name = /filename="([^"]+)"/.exec(ok.headers.get('content-disposition') ?? '')![1];
    const plain = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9]+/g, '_');
    expect(name).toBe(`${plain(ready.doc.documentType)}_${plain(ready.doc.applicationNo)}.pdf`);
    expect(name).not.toMatch(/[^\x20-\x7e]/);
    expect(await pdfText(ok.raw)).toContain(`Cerere nr. ${ready.doc.applicationNo}`);

    const blocked = await call(`/api/landreg/rgi/download-doc?wid=${workspaceId}&aid=${notReady.applicationId}&did=${notReady.doc.documentPk}`);
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({ blocked: true });
    const debug = await call(`/api/landreg/rgi/download-doc?wid=${workspaceId}&aid=${ready.applicationId}&did=${ready.doc.documentPk}&debug=1`);
    expect(debug.body).toMatchObject({ blocked: false, steps: ['issued-docs', 'actor-context', 'confirm-view', 'download'], fileName: name });
  }, 120_000);

  test('restricted viewers cannot download issued documents, which name the applicant: 403, and issued-docs says so', async () => {
    const docs = await allDocs();
    const ready = docs.find((d) => d.doc.available)!;
    const url = `/api/landreg/rgi/download-doc?wid=${workspaceId}&aid=${ready.applicationId}&did=${ready.doc.documentPk}`;
    const own = await call(url);
    expect(own.status).toBe(200);
    expect(await pdfText(own.raw)).toContain('Solicitant:');
    expect((await call(`/api/landreg/rgi/issued-docs?applicationId=${ready.applicationId}&workspaceId=${workspaceId}`)).body.downloadable).toBe(true);
    for (const as of [elena, ioana]) {
      const r = await call(url, { as });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ error: 'forbidden', message: expect.stringContaining('solicitantului') });
      expect((await call(`${url}&debug=1`, { as })).status).toBe(403);
      const listed = await call(`/api/landreg/rgi/issued-docs?applicationId=${ready.applicationId}&workspaceId=${workspaceId}`, { as });
      expect(listed.body).toMatchObject({ downloadable: false, items: expect.arrayContaining([expect.objectContaining({ documentPk: ready.doc.documentPk })]) });
    }
  }, 120_000);

  test('the county list is the portal’s 42 workspaces, the same ids and names as the reference nomenclature', () => {
    const nom = new Nomenclature(config.landreg.simDataDir);
    expect(COUNTIES).toHaveLength(42);
    expect([...COUNTIES].sort((a, b) => a.workspacePk - b.workspacePk)).toEqual(
      nom.counties.map((c) => ({ workspacePk: c.workspaceId, name: c.name })).sort((a, b) => a.workspacePk - b.workspacePk),
    );
  });

  test('bad parameters are 400 with details; unknown applications and documents are 404', async () => {
    const bad = await call('/api/landreg/rgi/applications', { body: { workspaceId: 'x', year: 1900 } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.field).sort()).toEqual(['workspaceId', 'year']);
    const q = await call('/api/landreg/rgi/download-doc?wid=1&aid=abc');
    expect(q.status).toBe(400);
    expect(q.body.details.map((d: any) => d.field).sort()).toEqual(['aid', 'did']);
    expect((await call(`/api/landreg/rgi/details?applicationId=${workspaceId * 1e7 + (YEAR - 2000) * 1e5 + 99_999}`)).status).toBe(404);
    const docs = await allDocs();
    const any = docs[0];
    expect((await call(`/api/landreg/rgi/download-doc?wid=${workspaceId}&aid=${any.applicationId}&did=${any.applicationId * 10 + 9}`)).status).toBe(404);
  }, 120_000);
});
