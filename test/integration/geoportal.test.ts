/**
 * Geoportal routes (issue 7, deliverables 4 and 5) against the real app (createApp) and the real
 * PostGIS store, with planted UATs and parcels in siruta range 990100-990199 and real signed-in
 * sessions (test/helpers/session.ts). Exports are opened back with GDAL's ogrinfo.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApp } from '../../api/app';
import { config } from '../../domain/config';
import { createStore } from '../../domain/db/store';
import { closePool, getPool } from '../../domain/db/pool';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { plantGeoportalFixtures, removeGeoportalFixtures, type GeoportalFixture } from '../helpers/geoportalFixtures';
import { listenApp } from '../helpers/appServer';
import { until } from '../helpers/wait';

// This file's connections by name, so a test can tell its own statements from another file's.
const APP_NAME = `geoportal-test-${process.pid}`;
const dbUrl = new URL(config.db.url);
dbUrl.searchParams.set('application_name', APP_NAME);
const store = createStore(dbUrl.toString());

const run = promisify(execFile);
const SIRUTA_BASE = 990100;

let server: http.Server;
let base: string;
let fx: GeoportalFixture;
let dan: TestSession;
let elena: TestSession;
let ioana: TestSession;
let tmp: string;

async function get(pathAndQuery: string, session?: TestSession): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${pathAndQuery}`, { headers: session ? { cookie: session.cookie } : {} });
  return { status: res.status, body: await res.json() };
}

async function post(pathname: string, body: unknown, session?: TestSession): Promise<Response> {
  return fetch(`${base}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(session ? { cookie: session.cookie } : {}) },
    body: JSON.stringify(body),
  });
}

/** Saves an export answer and asks ogrinfo about it. */
async function ogrinfo(res: Response, name: string): Promise<string> {
  const file = path.join(tmp, name);
  await fs.writeFile(file, Buffer.from(await res.arrayBuffer()));
  const { stdout } = await run('ogrinfo', ['-so', '-al', file]);
  return stdout;
}

beforeAll(async () => {
  fx = await plantGeoportalFixtures(getPool(), {
    sirutaBase: SIRUTA_BASE,
    centre: [23.62, 46.79],
    nameA: 'Ştefăneşti Probă',
    nameB: 'Valea Lungă Probă',
  });
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U', enrichmentScope: 'full' });
  elena = await createTestSessionRecord({ email: 'elena@birou.ro', company: 'B', enrichmentScope: 'full' });
  ioana = await createTestSessionRecord({ email: 'ioana@birou.ro', company: 'S', enrichmentScope: 'basic' });
  expect(elena.data.flags.basicPanel).toBe(true);
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'geoportal-test-'));
  ({ server, base } = await listenApp(createApp({ store })));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  for (const s of [dan, elena, ioana]) await s?.end();
  await removeGeoportalFixtures(getPool(), SIRUTA_BASE);
  await fs.rm(tmp, { recursive: true, force: true });
  await store.close();
  await closePool();
});

describe('geoportal search', () => {
  it('finds a UAT by its name typed without diacritics, whichever s-spelling the store has', async () => {
    for (const q of ['stefanesti proba', 'ȘTEFĂNEȘTI', 'Ştefăneşti']) {
      const { status, body } = await get(`/api/geoportal/search?q=${encodeURIComponent(q)}`, dan);
      expect(status).toBe(200);
      const hit = body.results.find((r: any) => r.kind === 'uat' && r.siruta === fx.uatA.siruta);
      expect(hit).toMatchObject({ uatName: 'Ştefăneşti Probă', county: 'Cluj' });
      const [minLon, minLat, maxLon, maxLat] = hit.bbox;
      expect(minLon).toBeLessThan(23.62);
      expect(maxLon).toBeGreaterThan(23.62);
      expect(minLat).toBeLessThan(46.79);
      expect(maxLat).toBeGreaterThan(46.79);
    }
  });

  it('lists cadastral numbers exact first, then shorter before longer, then by number and UAT, however many share the prefix', async () => {
    const [a, b] = [fx.uatA.siruta, fx.uatB.siruta];
    // Longer numbers planted first and a number in both UATs: the order must come from the search, not the table.
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref)
       SELECT 'TERENURI_ACTIVE', s, 880000 + n, r FROM (VALUES ($1::int, 1, '8807311'), ($1, 2, '880739'), ($2, 3, '88073'), ($1, 4, '880731'),
                                                              ($1, 5, '88073'), ($2, 6, '880730'), ($1, 7, '88073-C1')) v(s, n, r)`,
      [a, b],
    );
    const refs = async (q: string, limit: number, siruta?: number) => {
      const { status, body } = await get(`/api/geoportal/search?q=${q}&limit=${limit}${siruta ? `&siruta=${siruta}` : ''}`, dan);
      expect(status).toBe(200);
      return body.results.map((r: any) => `${r.cadastralRef}@${r.siruta === a ? 'A' : 'B'}`);
    };
    const order = ['88073@' + (a < b ? 'A' : 'B'), '88073@' + (a < b ? 'B' : 'A'), '880730@B', '880731@A', '880739@A', '8807311@A', '88073-C1@A'];
    expect(await refs('88073', 10)).toEqual(order);
    // A page is the head of that order, whatever the limit.
    expect(await refs('88073', 3)).toEqual(order.slice(0, 3));
    expect(await refs('8807', 4)).toEqual(order.slice(0, 4));
    // One UAT's numbers only, in the same order.
    expect(await refs('88073', 10, a)).toEqual(order.filter((x) => x.endsWith('@A')));
    await getPool().query(`DELETE FROM gis_features WHERE siruta IN ($1, $2) AND object_id BETWEEN 880001 AND 880007`, [a, b]);
  });

  it('finds a parcel by cadastral reference with its UAT name, in every UAT that uses the number', async () => {
    const { status, body } = await get(`/api/geoportal/search?q=${fx.shared.refInBoth}`, dan);
    expect(status).toBe(200);
    const parcels = body.results.filter((r: any) => r.kind === 'parcel' && r.cadastralRef === fx.shared.refInBoth);
    expect(parcels.map((p: any) => [p.featureId, p.uatName]).sort()).toEqual(
      [
        [fx.shared.idA, 'Ştefăneşti Probă'],
        [fx.shared.idB, 'Valea Lungă Probă'],
      ].sort(),
    );
    expect(parcels[0].bbox).toHaveLength(4);
  });

  it('finds owners with or without diacritics, but never for restricted users', async () => {
    const full = await get('/api/geoportal/search?q=stefanescu', dan);
    const owner = full.body.results.find((r: any) => r.kind === 'owner' && r.featureId === fx.enriched.id);
    expect(owner).toMatchObject({ ownerName: 'ŞTEFĂNESCU ION', cadastralRef: fx.enriched.cadastralRef, uatName: 'Ştefăneşti Probă' });
    const comma = await get(`/api/geoportal/search?q=${encodeURIComponent('ștefănescu')}`, dan);
    expect(comma.body.results.some((r: any) => r.kind === 'owner' && r.featureId === fx.enriched.id)).toBe(true);
    for (const s of [elena, ioana]) {
      const r = await get('/api/geoportal/search?q=stefanescu', s);
      expect(r.status).toBe(200);
      expect(r.body.results.filter((x: any) => x.kind === 'owner')).toEqual([]);
    }
  });

  it('a search its box abandons (a later keystroke supersedes it) stops in PostgreSQL at once', async () => {
    // The search's statements held up behind a lock on the UATs (they all join them), so they are
    // still running when the client leaves: only a cancel can end them before the lock goes.
    const locker = await getPool().connect();
    // Statements of this file's app held up by the lock (another file's may wait behind it too).
    const mine = `SELECT count(*)::int AS n FROM pg_stat_activity
                   WHERE $1 = ANY(pg_blocking_pids(pid)) AND application_name = $2`;
    const lockerPid = (locker as unknown as { processID: number }).processID;
    const held = async () => (await getPool().query<{ n: number }>(mine, [lockerPid, APP_NAME])).rows[0]!.n;
    try {
      await locker.query(`BEGIN; SET LOCAL lock_timeout = '10s'; LOCK TABLE gis_uats IN ACCESS EXCLUSIVE MODE`);
      const gone = new AbortController();
      const asked = fetch(`${base}/api/geoportal/search?q=stefanescu`, { headers: { cookie: dan.cookie }, signal: gone.signal }).catch((e: unknown) => e);
      // Its UAT and owner statements, each on a connection of its own.
      await until('the search to wait behind the lock', async () => (await held()) === 2, 10_000, 20);
      gone.abort();
      expect(await asked).toMatchObject({ name: 'AbortError' });
      await until('the abandoned statements to be cancelled', async () => (await held()) === 0, 5_000, 20);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    // The next search answers as always.
    const next = await get('/api/geoportal/search?q=stefanescu', dan);
    expect(next.body.results.some((r: any) => r.kind === 'owner' && r.featureId === fx.enriched.id)).toBe(true);
  });

  it('caps results at the limit and validates it', async () => {
    const one = await get('/api/geoportal/search?q=proba&limit=1', dan);
    expect(one.body.results).toHaveLength(1);
    const bad = await get('/api/geoportal/search?q=proba&limit=51', dan);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('bad_request');
    expect(bad.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'limit' })]));
    const empty = await get('/api/geoportal/search?q=', dan);
    expect(empty.status).toBe(400);
    expect(empty.body.details[0].field).toBe('q');
  });

  // Issue 30: "Mocanu" filled its page from the largest UATs; the one in Comandău was unreachable.
  it('narrows parcels and owners to one UAT when asked, and then lists no UAT', async () => {
    const planted = await getPool().query<{ id: string }>(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom, enrichment, enriched_at)
       VALUES ('TERENURI_ACTIVE', $1, 9001, $2, 100, ST_GeomFromText($3, 3844), $4, now()) RETURNING id`,
      [
        fx.uatB.siruta,
        `${String(SIRUTA_BASE).slice(-3)}7002`,
        `POLYGON((${fx.xy[0] + 2100} ${fx.xy[1]},${fx.xy[0] + 2110} ${fx.xy[1]},${fx.xy[0] + 2110} ${fx.xy[1] + 10},${fx.xy[0] + 2100} ${fx.xy[1] + 10},${fx.xy[0] + 2100} ${fx.xy[1]}))`,
        JSON.stringify({ PROPRIETARI: 'ŞTEFĂNESCU ION (1/1)' }),
      ],
    );
    const inB = planted.rows[0].id;
    const everywhere = await get('/api/geoportal/search?q=stefanescu', dan);
    const owners = (r: { body: any }) => r.body.results.filter((x: any) => x.kind === 'owner').map((x: any) => x.featureId).sort();
    expect(owners(everywhere)).toEqual(expect.arrayContaining([fx.enriched.id, inB]));

    const onlyA = await get(`/api/geoportal/search?q=stefanescu&siruta=${fx.uatA.siruta}`, dan);
    expect(onlyA.status).toBe(200);
    expect(owners(onlyA)).toEqual([fx.enriched.id]);
    expect(onlyA.body.results.find((x: any) => x.kind === 'owner')).toMatchObject({ siruta: fx.uatA.siruta, objectId: fx.enriched.objectId });
    expect(owners(await get(`/api/geoportal/search?q=stefanescu&siruta=${fx.uatB.siruta}`, dan))).toEqual([inB]);

    // The number both UATs use: only the asked UAT's parcel, and no UAT hit.
    const refB = await get(`/api/geoportal/search?q=${fx.shared.refInBoth}&siruta=${fx.uatB.siruta}`, dan);
    expect(refB.body.results.map((x: any) => [x.kind, x.featureId])).toEqual([['parcel', fx.shared.idB]]);
    const uatNamed = await get(`/api/geoportal/search?q=proba&siruta=${fx.uatA.siruta}`, dan);
    expect(uatNamed.body.results.filter((x: any) => x.kind === 'uat')).toEqual([]);
    // Still the viewer rule: a restricted user narrowed to the UAT gets no owners either.
    expect(owners(await get(`/api/geoportal/search?q=stefanescu&siruta=${fx.uatA.siruta}`, ioana))).toEqual([]);
    const bad = await get('/api/geoportal/search?q=stefanescu&siruta=abc', dan);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('siruta');
    await getPool().query(`DELETE FROM gis_features WHERE id = $1`, [inB]);
  });

  it('puts a UAT named like the query above the owner hits that carry its name, even when they fill the page', async () => {
    const siruta = SIRUTA_BASE + 3;
    const [cx, cy] = fx.xy;
    await getPool().query(
      `INSERT INTO gis_uats (siruta, name, county, geom) VALUES ($1, 'Comandău Probă', 'Covasna', ST_Multi(ST_GeomFromText($2, 3844)))`,
      [siruta, `POLYGON((${cx - 5000} ${cy - 5000},${cx - 4000} ${cy - 5000},${cx - 4000} ${cy - 4000},${cx - 5000} ${cy - 4000},${cx - 5000} ${cy - 5000}))`],
    );
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom, enrichment, enriched_at)
       SELECT 'TERENURI_ACTIVE', $1, 100 + g, 'cp' || g, 100,
              ST_GeomFromText(format('POLYGON((%s %s,%s %s,%s %s,%s %s,%s %s))', $2::float8 + g * 20, $3::float8, $2::float8 + g * 20 + 10, $3::float8,
                $2::float8 + g * 20 + 10, $3::float8 + 10, $2::float8 + g * 20, $3::float8 + 10, $2::float8 + g * 20, $3::float8), 3844),
              '{"PROPRIETARI": "COMUNA COMANDĂU PROBĂ (DOMENIUL PUBLIC) (1/1)"}'::jsonb, now()
         FROM generate_series(1, 30) g`,
      [siruta, cx - 4900, cy - 4900],
    );
    for (const q of ['Comandău Probă', 'comandau proba']) {
      const { body } = await get(`/api/geoportal/search?q=${encodeURIComponent(q)}&limit=12`, dan);
      expect(body.results).toHaveLength(12);
      expect(body.results[0]).toMatchObject({ kind: 'uat', siruta, uatName: 'Comandău Probă', synced: true, bboxOf: 'uat' });
      expect(body.results.slice(1).every((x: any) => x.kind === 'owner')).toBe(true);
    }
  });

  // "Sfântu Gheorghe (Tulcea)" had no bbox: picking it did nothing.
  it('gives a UAT without a boundary the box of its parcels, else of its county, and says whether it was synced', async () => {
    const withParcels = SIRUTA_BASE + 4;
    const empty = SIRUTA_BASE + 5;
    await getPool().query(`INSERT INTO gis_uats (siruta, name, county) VALUES ($1, 'Fără Limită Probă', 'Cluj'), ($2, 'Nesincronizat Probă', 'Cluj')`, [
      withParcels,
      empty,
    ]);
    const [cx, cy] = fx.xy;
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom)
       VALUES ('TERENURI_ACTIVE', $1, 1, 'fl1', 100, ST_GeomFromText($2, 3844))`,
      // West of A, outside every planted boundary (the boundary check of A must not see it).
      [withParcels, `POLYGON((${cx - 3000} ${cy},${cx - 2990} ${cy},${cx - 2990} ${cy + 10},${cx - 3000} ${cy + 10},${cx - 3000} ${cy}))`],
    );
    const hit = async (q: string) => (await get(`/api/geoportal/search?q=${encodeURIComponent(q)}`, dan)).body.results.find((x: any) => x.kind === 'uat');
    const a = await hit('Fără Limită Probă');
    expect(a).toMatchObject({ siruta: withParcels, synced: true, bboxOf: 'parcels' });
    expect(a.bbox[2] - a.bbox[0]).toBeLessThan(0.001);
    expect((a.bbox[0] + a.bbox[2]) / 2).toBeCloseTo(23.62, 1);

    const b = await hit('Nesincronizat Probă');
    expect(b).toMatchObject({ siruta: empty, synced: false, bboxOf: 'county' });
    // The county's box holds the planted Cluj UATs (and whatever other Cluj UATs the store has).
    expect(b.bbox[0]).toBeLessThanOrEqual(23.62);
    expect(b.bbox[2]).toBeGreaterThanOrEqual(23.62);

    const bounds = await get(`/api/geoportal/uat-bounds?siruta=${withParcels}`, dan);
    expect(bounds.body).toMatchObject({ siruta: withParcels, name: 'Fără Limită Probă', county: 'Cluj', synced: true });
    expect((await get(`/api/geoportal/uat-bounds?siruta=${empty}`, dan)).status).toBe(404);
    expect((await get(`/api/geoportal/uat-bounds?siruta=${fx.uatA.siruta}`, dan)).body).toMatchObject({ name: 'Ştefăneşti Probă', synced: true });
  });
});

describe('geoportal feature', () => {
  it('answers the feature with enrichment and WGS84 GeoJSON geometry, by id and by key', async () => {
    const byId = await get(`/api/geoportal/feature?id=${fx.enriched.id}`, dan);
    expect(byId.status).toBe(200);
    const f = byId.body.feature;
    expect(f).toMatchObject({
      id: fx.enriched.id,
      layerId: 'TERENURI_ACTIVE',
      siruta: fx.uatA.siruta,
      uatName: 'Ştefăneşti Probă',
      cadastralRef: fx.enriched.cadastralRef,
      isActive: true,
      enrichedAt: '2026-01-15T10:00:00.000Z',
    });
    expect(f.areaValue).toBeCloseTo(3000, 0);
    expect(f.enrichment).toMatchObject({ NR_CF: `${fx.enriched.cadastralRef}-C1`, PROPRIETARI: expect.stringContaining('POPESCU MARIA') });
    expect(f.geometry.type).toBe('Polygon');
    const ring: [number, number][] = f.geometry.coordinates[0];
    for (const [lon, lat] of ring) {
      expect(lon).toBeGreaterThan(23.6);
      expect(lon).toBeLessThan(23.64);
      expect(lat).toBeGreaterThan(46.78);
      expect(lat).toBeLessThan(46.8);
    }
    const byKey = await get(`/api/geoportal/feature?siruta=${fx.uatA.siruta}&objectId=${fx.enriched.objectId}`, dan);
    expect(byKey.status).toBe(200);
    expect(byKey.body.feature.id).toBe(fx.enriched.id);
  });

  it('gives a basic panel user only the cadastral reference, the area and restricted:true', async () => {
    const { status, body } = await get(`/api/geoportal/feature?id=${fx.enriched.id}`, elena);
    expect(status).toBe(200);
    expect(Object.keys(body.feature).sort()).toEqual(['areaValue', 'cadastralRef', 'restricted']);
    expect(body.feature).toMatchObject({ cadastralRef: fx.enriched.cadastralRef, restricted: true });
  });

  it('nulls the personal enrichment keys under scope basic', async () => {
    const { body } = await get(`/api/geoportal/feature?id=${fx.enriched.id}`, ioana);
    expect(body.feature.enrichment).toMatchObject({ NR_CF: null, ADRESA: null, PROPRIETARI: null, PROPRIETARI_VECHI: null, INTRAVILAN: 'DA' });
  });

  it('nulls the land-book number a parcel without geometry keeps among its portal attributes, under scope basic', async () => {
    // As the import of parcels without geometry stores them (domain/enrichment/noGeometry.ts).
    const r = await getPool().query<{ id: string }>(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, is_active, geom, attributes, geometry_source)
       VALUES ('TERENURI_ACTIVE', $1, -880099, '880099', true, NULL, $2, 'NO_GEOMETRY') RETURNING id`,
      [fx.uatA.siruta, JSON.stringify({ IMMOVABLE_ID: 880099, NATIONAL_CADASTRAL_REFERENCE: '880099', LANDBOOK_NO: '880099-C1', MEASURED_AREA: 512 })],
    );
    try {
      const restricted = await get(`/api/geoportal/feature?id=${r.rows[0].id}`, ioana);
      expect(restricted.status).toBe(200);
      expect(restricted.body.feature.attributes).toEqual({ IMMOVABLE_ID: 880099, NATIONAL_CADASTRAL_REFERENCE: '880099', LANDBOOK_NO: null, MEASURED_AREA: 512 });
      expect(JSON.stringify(restricted.body)).not.toContain('880099-C1');
      const full = await get(`/api/geoportal/feature?id=${r.rows[0].id}`, dan);
      expect(full.body.feature.attributes.LANDBOOK_NO).toBe('880099-C1');
    } finally {
      await getPool().query(`DELETE FROM gis_features WHERE id = $1`, [r.rows[0].id]);
    }
  });

  it('answers 400 with details on a bad identification and 404 on an unknown one', async () => {
    const bad = await get('/api/geoportal/feature?siruta=abc', dan);
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.field)).toEqual(expect.arrayContaining(['siruta']));
    const none = await get('/api/geoportal/feature', dan);
    expect(none.status).toBe(400);
    expect(none.body.details.map((d: any) => d.field)).toEqual(expect.arrayContaining(['siruta', 'objectId']));
    const missing = await get('/api/geoportal/feature?id=00000000-0000-4000-8000-000000000000', dan);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('not_found');
  });
});

describe('geoportal export', () => {
  const ids = () => fx.parcels.map((p) => p.id);

  it('writes a GPKG in EPSG:3844 with a spatial index, named after the UAT and the count', async () => {
    const res = await post('/api/geoportal/export', { format: 'gpkg', featureIds: ids() }, dan);
    expect(res.status).toBe(200);
    const n = fx.parcels.length;
    expect(res.headers.get('content-disposition')).toContain(`parcele_stefanesti-proba_${n}.gpkg`);
    expect(res.headers.get('x-feature-count')).toBe(String(n));
    const info = await ogrinfo(res, 'out.gpkg');
    expect(info).toMatch(new RegExp(`Feature Count: ${n}\\b`));
    expect(info).toMatch(/ID\["EPSG",\s*3844\]\]\s*$/m);
    expect(info).toMatch(/Geometry: Multi Polygon/);
    expect(info).toMatch(/proprietari: String/);
    const { stdout } = await run('ogrinfo', [path.join(tmp, 'out.gpkg'), '-sql', "SELECT HasSpatialIndex('parcele_stefanesti-proba', 'geom') "]);
    expect(stdout).toMatch(/HasSpatialIndex \(Integer\) = 1/);
  });

  it('writes a DXF in Stereo 70 coordinates with every parcel', async () => {
    const res = await post('/api/geoportal/export', { format: 'dxf', featureIds: ids() }, dan);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('.dxf');
    const info = await ogrinfo(res, 'out.dxf');
    expect(info).toMatch(new RegExp(`Feature Count: ${fx.parcels.length}\\b`));
    // Stereo 70 metres, not degrees: the extent is around the planted centre.
    const m = info.match(/Extent: \(([\d.]+), ([\d.]+)\) - \(([\d.]+), ([\d.]+)\)/);
    expect(m).not.toBeNull();
    expect(Math.abs(Number(m![1]) - fx.xy[0])).toBeLessThan(500);
    expect(Math.abs(Number(m![2]) - fx.xy[1])).toBeLessThan(500);
  });

  it('writes RFC 7946 GeoJSON in WGS84 that parses with the right count', async () => {
    const res = await post('/api/geoportal/export', { format: 'geojson', featureIds: [...ids(), fx.building.id] }, dan);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/geo+json');
    expect(res.headers.get('content-disposition')).toContain(`obiecte_stefanesti-proba_${fx.parcels.length + 1}.geojson`);
    const doc = JSON.parse(Buffer.from(await res.arrayBuffer()).toString('utf8'));
    expect(doc.type).toBe('FeatureCollection');
    expect(doc.features).toHaveLength(fx.parcels.length + 1);
    expect(doc.crs).toBeUndefined();
    const [lon, lat] = doc.features[0].geometry.coordinates.flat(2);
    expect(lon).toBeCloseTo(23.62, 1);
    expect(lat).toBeCloseTo(46.79, 1);
    const enriched = doc.features.find((f: any) => f.properties.id === fx.enriched.id);
    expect(enriched.properties).toMatchObject({ cadastral_ref: fx.enriched.cadastralRef, uat: 'Ştefăneşti Probă', intravilan: 'DA' });
  });

  it('leaves enrichment out of a basic panel user\'s export', async () => {
    const res = await post('/api/geoportal/export', { format: 'geojson', featureIds: [fx.enriched.id] }, elena);
    const doc = JSON.parse(Buffer.from(await res.arrayBuffer()).toString('utf8'));
    expect(Object.keys(doc.features[0].properties)).not.toContain('proprietari');
  });

  it('answers 400 with details on a bad body, 404 when nothing exists', async () => {
    const badFormat = await post('/api/geoportal/export', { format: 'shp', featureIds: ['x'] }, dan);
    expect(badFormat.status).toBe(400);
    const body = (await badFormat.json()) as any;
    expect(body.details.map((d: any) => d.field)).toEqual(expect.arrayContaining(['format', 'featureIds.0']));
    const emptyList = await post('/api/geoportal/export', { format: 'gpkg', featureIds: [] }, dan);
    expect(emptyList.status).toBe(400);
    const tooMany = await post(
      '/api/geoportal/export',
      { format: 'gpkg', featureIds: Array.from({ length: 5001 }, () => fx.enriched.id) },
      dan,
    );
    expect(tooMany.status).toBe(400);
    const none = await post('/api/geoportal/export', { format: 'gpkg', featureIds: ['00000000-0000-4000-8000-000000000000'] }, dan);
    expect(none.status).toBe(404);
  });
});

describe('geoportal UAT geometry', () => {
  it('answers the UAT bounds in WGS84', async () => {
    const { status, body } = await get(`/api/geoportal/uat-bounds?siruta=${fx.uatA.siruta}`, dan);
    expect(status).toBe(200);
    expect(body.siruta).toBe(fx.uatA.siruta);
    const [minLon, minLat, maxLon, maxLat] = body.bbox;
    // A 2 km square: about 0.026 degrees of longitude and 0.018 of latitude at 46.8 N.
    expect(maxLon - minLon).toBeGreaterThan(0.022);
    expect(maxLon - minLon).toBeLessThan(0.03);
    expect(maxLat - minLat).toBeGreaterThan(0.015);
    expect(maxLat - minLat).toBeLessThan(0.021);
    expect((minLon + maxLon) / 2).toBeCloseTo(23.62, 2);
    expect((minLat + maxLat) / 2).toBeCloseTo(46.79, 2);
    expect((await get('/api/geoportal/uat-bounds?siruta=990199', dan)).status).toBe(404);
    const bad = await get('/api/geoportal/uat-bounds?siruta=-4', dan);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('siruta');
  });

  it('boundary-check finds the planted foreign and edge parcels and nothing else', async () => {
    const a = await get(`/api/geoportal/boundary-check?siruta=${fx.uatA.siruta}`, dan);
    expect(a.status).toBe(200);
    expect(a.body.foreign).toEqual([
      { id: fx.foreign.id, siruta: fx.uatB.siruta, uatName: 'Valea Lungă Probă', cadastralRef: fx.foreign.cadastralRef },
    ]);
    expect(a.body.edge).toEqual([{ id: fx.edge.id, siruta: fx.uatA.siruta, uatName: 'Ştefăneşti Probă', cadastralRef: fx.edge.cadastralRef }]);
    // Seen from B, the same two parcels swap roles.
    const b = await get(`/api/geoportal/boundary-check?siruta=${fx.uatB.siruta}`, dan);
    expect(b.body.foreign.map((i: any) => i.id)).toEqual([fx.edge.id]);
    expect(b.body.edge.map((i: any) => i.id)).toEqual([fx.foreign.id]);
  });
});

describe('geoportal cf-status', () => {
  it('answers exists:false, then the newest extract with its download URL', async () => {
    const ref = fx.enriched.cadastralRef;
    const none = await get(`/api/geoportal/cf-status?nrCad=${ref}&siruta=${fx.uatA.siruta}`, dan);
    expect(none).toEqual({ status: 200, body: { exists: false } });
    const expires = new Date(Date.now() + 20 * 24 * 3600 * 1000);
    const r = await getPool().query<{ id: string }>(
      `INSERT INTO cf_extracts (nr_cadastral, siruta, status, version, issued_at, expires_at, s3_key, document_name)
       VALUES ($1, $2, 'completed', 2, now(), $3, 'cf/test.pdf', 'Extras CF') RETURNING id`,
      [ref, fx.uatA.siruta, expires],
    );
    const { body } = await get(`/api/geoportal/cf-status?nrCad=${ref}&siruta=${fx.uatA.siruta}`, dan);
    expect(body).toMatchObject({
      exists: true,
      status: 'completed',
      state: 'valid',
      expiresAt: expires.toISOString(),
      downloadUrl: `/api/cfportal/download?id=${r.rows[0].id}`,
    });
    // The same number in the other UAT has no extract.
    expect((await get(`/api/geoportal/cf-status?nrCad=${ref}&siruta=${fx.uatB.siruta}`, dan)).body).toEqual({ exists: false });
    const bad = await get('/api/geoportal/cf-status', dan);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('nrCad');
  });
});

describe('geoportal access', () => {
  it.each([
    ['get', '/api/geoportal/search?q=cluj'],
    ['get', '/api/geoportal/feature?id=00000000-0000-4000-8000-000000000000'],
    ['get', `/api/geoportal/uat-bounds?siruta=${SIRUTA_BASE + 1}`],
    ['get', `/api/geoportal/boundary-check?siruta=${SIRUTA_BASE + 1}`],
    ['get', '/api/geoportal/cf-status?nrCad=1'],
    ['post', '/api/geoportal/export'],
  ])('%s %s answers 401 without a session', async (method, url) => {
    const res = method === 'get' ? await fetch(`${base}${url}`) : await post(url, { format: 'gpkg', featureIds: [] });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toBe('unauthorized');
  });
});
