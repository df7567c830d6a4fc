/**
 * OGC API Features over the store with personal access tokens (issue 29), against the running
 * stack: the token routes, the OGC documents, items (bbox, CRS, datetime, filters, paging while
 * the store is written), the viewer rule, and GDAL's own OAPIF driver (ogrinfo, ogr2ogr to GPKG)
 * as the client no one here wrote. Siruta range 991300-991399.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { closePool, getPool } from '../../domain/db/pool';
import { tokenHash } from '../../domain/auth/personalTokens';
import { E2E_BASE_URL, E2E_ORIGIN } from '../helpers/e2e';
import { callJson } from '../helpers/appServer';
import { until } from '../helpers/wait';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { clearExportUat, seedExportUat } from '../helpers/exportSeed';

const run = promisify(execFile);
const base = E2E_BASE_URL;
const SIRUTA = 991300;
const OTHER = 991301;
const PARCELS = 2_600;
const NO_GEOM = 30;
/** Where this suite's UAT lies: the seed's grid moved by (DX, DY) metres. */
const DX = 137_000;
const DY = 61_000;
const STEREO70 = 'http://www.opengis.net/def/crs/EPSG/0/3844';
const WEBMERC = 'http://www.opengis.net/def/crs/EPSG/0/3857';
const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';

let tmp: string;
let dan: TestSession;
let radu: TestSession;
let elena: TestSession;
let ioana: TestSession;
let danToken: string;
let raduToken: string;

type Json = any;

// Mutating calls from the UI carry the page's Origin; the token routes are cookie routes.
const api = (who: TestSession, method: string, p: string, body?: unknown) => callJson(base, method, p, { body, cookie: who.cookie, origin: E2E_ORIGIN });

async function ogc(p: string, auth: { token?: string; cookie?: string }) {
  const headers: Record<string, string> = {};
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  if (auth.cookie) headers.cookie = auth.cookie;
  const res = await fetch(p.startsWith('http') ? p : `${base}${p}`, {
    headers,
  });
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body, text };
}

const storeCount = async (siruta: number, layer = 'TERENURI_ACTIVE') =>
  (await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = $2`, [siruta, layer]))
    .rows[0].n;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ogc-test-'));
  await seedExportUat(getPool(), {
    siruta: SIRUTA,
    name: 'Câmpia OGC',
    county: 'Cluj',
    parcels: PARCELS,
    noGeometry: NO_GEOM,
    syncedHoursAgo: 2,
  });
  await seedExportUat(getPool(), {
    siruta: OTHER,
    name: 'Vecin OGC',
    county: 'Cluj',
    parcels: 50,
    noGeometry: 0,
  });
  // Every UAT of exportSeed starts at 600000 E / 400000 N: ours moves to a corner of the map no
  // other suite uses, the neighbour 20 km further, so bbox filters see only them.
  for (const [siruta, dx, dy] of [
    [SIRUTA, DX, DY],
    [OTHER, DX + 20_000, DY + 20_000],
  ]) {
    await getPool().query(`UPDATE gis_features SET geom = ST_Translate(geom, $2, $3) WHERE siruta = $1`, [siruta, dx, dy]);
    await getPool().query(`UPDATE gis_uats SET geom = ST_Translate(geom, $2, $3) WHERE siruta = $1`, [siruta, dx, dy]);
  }
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U', enrichmentScope: 'full' });
  radu = await createTestSessionRecord({ email: 'radu@birou.ro', company: 'B', enrichmentScope: null });
  elena = await createTestSessionRecord({ email: 'elena@birou.ro', company: 'B', enrichmentScope: 'full' });
  ioana = await createTestSessionRecord({ email: 'ioana@birou.ro', company: 'S', enrichmentScope: 'basic' });
  danToken = (await api(dan, 'POST', '/api/tokens', { name: 'QGIS test dan' })).body.token;
  raduToken = (await api(radu, 'POST', '/api/tokens', { name: 'QGIS test radu' })).body.token;
}, 120_000);

afterAll(async () => {
  await getPool().query(`DELETE FROM personal_access_tokens WHERE user_id = ANY($1)`, [
    [dan, radu, elena, ioana].filter(Boolean).map((s) => s.data.user.id),
  ]);
  await Promise.allSettled([dan, radu, elena, ioana].filter(Boolean).map((s) => s.end()));
  await clearExportUat(getPool(), SIRUTA);
  await clearExportUat(getPool(), OTHER);
  await fs.rm(tmp, { recursive: true, force: true });
  await closePool();
});

describe('personal access tokens', () => {
  it('created with a name (secret once, stored as its SHA-256 only), listed without the secret, default 90 days', async () => {
    const r = await api(dan, 'POST', '/api/tokens', { name: 'Laptop teren' });
    expect(r.status).toBe(201);
    expect(r.body.token).toMatch(/^cgp_pat_[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(r.body.expiresAt) - Date.parse(r.body.createdAt)) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    const row = await getPool().query(`SELECT token_hash FROM personal_access_tokens WHERE id = $1`, [r.body.id]);
    expect(row.rows[0].token_hash).toBe(tokenHash(r.body.token));
    expect(JSON.stringify(row.rows[0])).not.toContain(r.body.token);
    const list = await api(dan, 'GET', '/api/tokens');
    const mine = list.body.items.find((t: Json) => t.id === r.body.id);
    expect(mine).toMatchObject({ name: 'Laptop teren', lastUsedAt: null });
    expect(JSON.stringify(list.body)).not.toContain(r.body.token);
    expect((await api(radu, 'GET', '/api/tokens')).body.items.map((t: Json) => t.name)).toEqual(['QGIS test radu']);
  });

  it('refuses a missing name and an expiry past 365 days with 400', async () => {
    expect((await api(dan, 'POST', '/api/tokens', { name: '  ' })).status).toBe(400);
    expect((await api(dan, 'POST', '/api/tokens', { name: 'x', expiresInDays: 366 })).status).toBe(400);
  });

  it('signs in on GET /ogc and /tiles, records its last use, and opens nothing under /api', async () => {
    const r = await api(dan, 'POST', '/api/tokens', { name: 'Folosit' });
    expect((await ogc('/ogc/collections', {})).status).toBe(401);
    expect((await ogc('/ogc/collections', { token: r.body.token })).status).toBe(200);
    expect((await ogc('/tiles/catalog', { token: r.body.token })).status).toBe(200);
    expect((await ogc('/api/tokens', { token: r.body.token })).status).toBe(401);
    expect((await ogc('/api/geoportal/feature?id=00000000-0000-0000-0000-000000000000', { token: r.body.token })).status).toBe(401);
    const listed = (await api(dan, 'GET', '/api/tokens')).body.items.find((t: Json) => t.id === r.body.id);
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a revoked token answers 401 at once; another user cannot revoke it (404)', async () => {
    const r = await api(dan, 'POST', '/api/tokens', { name: 'De revocat' });
    expect((await api(radu, 'DELETE', `/api/tokens/${r.body.id}`)).status).toBe(404);
    expect((await ogc('/ogc', { token: r.body.token })).status).toBe(200);
    expect((await api(dan, 'DELETE', `/api/tokens/${r.body.id}`)).status).toBe(200);
    expect((await ogc('/ogc', { token: r.body.token })).status).toBe(401);
    expect((await api(dan, 'GET', '/api/tokens')).body.items.map((t: Json) => t.id)).not.toContain(r.body.id);
    expect((await api(dan, 'DELETE', `/api/tokens/${r.body.id}`)).status).toBe(404);
  });

  it('an expired token answers 401, and a wrong bearer is 401 even beside a valid session cookie', async () => {
    const r = await api(dan, 'POST', '/api/tokens', {
      name: 'Expiră',
      expiresInDays: 1,
    });
    expect((await ogc('/ogc', { token: r.body.token })).status).toBe(200);
    // A day passes (the only way to make it expire without waiting).
    await getPool().query(`UPDATE personal_access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [r.body.id]);
    const expired = await ogc('/ogc', { token: r.body.token });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('unauthorized');
    expect((await ogc('/ogc', { token: `${danToken}x`, cookie: dan.cookie })).status).toBe(401);
  });
});

describe('the OGC documents', () => {
  it('landing page links the OpenAPI 3.0 document (service-desc), conformance and collections', async () => {
    const r = await ogc('/ogc', { token: danToken });
    const rels = Object.fromEntries(r.body.links.map((l: Json) => [l.rel, l]));
    expect(rels['service-desc'].type).toBe('application/vnd.oai.openapi+json;version=3.0');
    expect(rels['service-desc'].href).toBe(`${base}/ogc/api`);
    const doc = await ogc(rels['service-desc'].href, { token: danToken });
    expect(doc.headers.get('content-type')).toContain('application/vnd.oai.openapi+json');
    expect(doc.body.openapi).toMatch(/^3\.0\./);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/ogc',
        '/ogc/conformance',
        '/ogc/collections',
        '/ogc/collections/{collectionId}/items',
        '/ogc/collections/{collectionId}/items/{featureId}',
      ]),
    );
    expect(Object.keys(doc.body.paths).every((p) => p.startsWith('/ogc'))).toBe(true);
    const conf = await ogc(rels.conformance.href, { token: danToken });
    expect(conf.body.conformsTo).toEqual(
      expect.arrayContaining([
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
        'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
        'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
      ]),
    );
  });

  it('four collections, each with the CRS list, Stereo 70 as storage CRS and an extent around the store', async () => {
    const uat = await getPool().query(
      `SELECT ST_XMin(b) x1, ST_YMin(b) y1, ST_XMax(b) x2, ST_YMax(b) y2 FROM (SELECT ST_Transform(geom, 4326) b FROM gis_uats WHERE siruta = $1) s`,
      [SIRUTA],
    );
    const u = uat.rows[0];
    // The extents are kept a minute (domain/ogc/features.ts collectionExtents): another file's
    // request may have filled them just before this file's UAT was moved into place.
    const r = await until(
      'the parcels extent to cover the UAT',
      async () => {
        const c = await ogc('/ogc/collections', { cookie: dan.cookie });
        const [x1, y1, x2, y2] = c.body.collections[0].extent.spatial.bbox[0];
        return x1 <= u.x1 && y1 <= u.y1 && x2 >= u.x2 && y2 >= u.y2 && c;
      },
      70_000,
      2_000,
    );
    expect(r.body.collections.map((c: Json) => c.id)).toEqual(['parcels', 'buildings', 'intravilan', 'uat-boundaries']);
    const parcels = r.body.collections[0];
    expect(parcels.crs).toEqual([CRS84, STEREO70, WEBMERC]);
    expect(parcels.storageCrs).toBe(STEREO70);
    const one = await ogc('/ogc/collections/buildings', { token: danToken });
    expect(one.body.links.find((l: Json) => l.rel === 'items').type).toBe('application/geo+json');
    expect((await ogc('/ogc/collections/nu-exista', { token: danToken })).status).toBe(404);
  }, 90_000);

  it('queryables name siruta and cadastral_ref', async () => {
    const r = await ogc('/ogc/collections/parcels/queryables', {
      token: danToken,
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.properties)).toEqual(expect.arrayContaining(['siruta', 'cadastral_ref']));
  });
});

describe('items', () => {
  it('limit: 100 by default, 10,000 at most (a larger one is cut, not refused), 0 refused', async () => {
    const d = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}`, {
      token: danToken,
    });
    expect(d.status).toBe(200);
    expect(d.headers.get('content-type')).toContain('application/geo+json');
    expect(d.headers.get('content-crs')).toBe(`<${CRS84}>`);
    expect(d.body.features).toHaveLength(100);
    expect(d.body.numberReturned).toBe(100);
    const big = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=50000`, { token: danToken });
    expect(big.body.numberReturned).toBe(PARCELS + NO_GEOM);
    expect(big.body.links.find((l: Json) => l.rel === 'self').href).toContain('limit=50000');
    expect((await ogc(`/ogc/collections/parcels/items?limit=0`, { token: danToken })).status).toBe(400);
    expect(
      (
        await ogc(`/ogc/collections/parcels/items?unknown=1`, {
          token: danToken,
        })
      ).status,
    ).toBe(400);
  });

  it('crs=EPSG:3844 answers the store coordinates exactly, northing first, with Content-Crs', async () => {
    const r = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&cadastral_ref=100005&crs=${encodeURIComponent(STEREO70)}`, {
      token: danToken,
    });
    expect(r.headers.get('content-crs')).toBe(`<${STEREO70}>`);
    expect(r.body.features).toHaveLength(1);
    const f = r.body.features[0];
    const store = await getPool().query(`SELECT ST_AsGeoJSON(geom, 9, 0)::json AS g FROM gis_features WHERE id = $1`, [f.id]);
    const flip = (c: Json): Json => (typeof c[0] === 'number' ? [c[1], c[0]] : c.map(flip));
    expect(f.geometry.coordinates).toEqual(flip(store.rows[0].g.coordinates));
    expect(f.properties.cadastral_ref).toBe('100005');
  });

  it('crs=EPSG:3857 and CRS84 put the same parcel where PostGIS puts it', async () => {
    const q = `siruta=${SIRUTA}&cadastral_ref=100005`;
    const m = await ogc(`/ogc/collections/parcels/items?${q}&crs=${encodeURIComponent(WEBMERC)}`, { token: danToken });
    const w = await ogc(`/ogc/collections/parcels/items?${q}`, {
      token: danToken,
    });
    const id = m.body.features[0].id;
    const s = await getPool().query(
      `SELECT ST_AsGeoJSON(ST_Transform(geom, 3857), 9, 0)::json AS m, ST_AsGeoJSON(ST_Transform(geom, 4326), 9, 0)::json AS w FROM gis_features WHERE id = $1`,
      [id],
    );
    // Positions to the ninth decimal (CRS84 comes through the Web Mercator copy: 1e-14 degrees apart).
    const flat = (c: Json): number[] => (typeof c[0] === 'number' ? c : c.flatMap(flat));
    const near = (a: Json, b: Json, tol: number) => {
      const [x, y] = [flat(a.coordinates), flat(b.coordinates)];
      expect(x.length).toBe(y.length);
      expect(Math.max(...x.map((v, i) => Math.abs(v - y[i])))).toBeLessThanOrEqual(tol);
    };
    near(m.body.features[0].geometry, s.rows[0].m, 1e-6);
    near(w.body.features[0].geometry, s.rows[0].w, 2e-9);
    expect(
      (
        await ogc(`/ogc/collections/parcels/items?crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/0/4258')}`, {
          token: danToken,
        })
      ).status,
    ).toBe(400);
  });

  it('bbox in CRS84 and in Stereo 70 (bbox-crs, northing first) select the same parcels, the neighbour UAT excluded', async () => {
    // The first 3 x 3 cells of the seeded grid (cells of 25 m from 600000 E / 400000 N, moved by DX, DY).
    const [e1, n1, e2, n2] = [600_001 + DX, 400_001 + DY, 600_060 + DX, 400_060 + DY];
    const nearby = await getPool().query<{ id: string }>(
      `SELECT id FROM gis_features WHERE layer_id = 'TERENURI_ACTIVE' AND geom && ST_MakeEnvelope($1, $2, $3, $4, 3844)
          AND ST_Intersects(geom, ST_MakeEnvelope($1, $2, $3, $4, 3844)) ORDER BY id`,
      [e1, n1, e2, n2],
    );
    expect(nearby.rows.length).toBeGreaterThan(3);
    const s70 = await ogc(
      `/ogc/collections/parcels/items?bbox=${n1},${e1},${n2},${e2}&bbox-crs=${encodeURIComponent(STEREO70)}&limit=1000`,
      {
        token: danToken,
      },
    );
    expect(s70.body.features.map((f: Json) => f.id).sort()).toEqual(nearby.rows.map((r) => r.id));
    const box = await getPool().query(
      `SELECT ST_XMin(b) x1, ST_YMin(b) y1, ST_XMax(b) x2, ST_YMax(b) y2 FROM (SELECT ST_Transform(ST_MakeEnvelope($1, $2, $3, $4, 3844), 4326) b) s`,
      [e1, n1, e2, n2],
    );
    const b = box.rows[0];
    const wgs = await ogc(`/ogc/collections/parcels/items?bbox=${b.x1},${b.y1},${b.x2},${b.y2}&limit=1000`, { token: danToken });
    const ids = wgs.body.features.map((f: Json) => f.id);
    expect(ids).toEqual(expect.arrayContaining(nearby.rows.map((r) => r.id)));
    expect(wgs.body.features.every((f: Json) => f.properties.siruta === SIRUTA)).toBe(true);
    expect(
      (
        await ogc(`/ogc/collections/parcels/items?bbox=1,2,3`, {
          token: danToken,
        })
      ).status,
    ).toBe(400);
  });

  it('datetime selects on the sync stamp', async () => {
    // A sync rewrites seven parcels: the update trigger stamps them (updated_at = now()).
    const t0 = (await getPool().query<{ t: Date }>(`SELECT clock_timestamp() AS t`)).rows[0].t.toISOString();
    await getPool().query(
      `UPDATE gis_features SET area_value = area_value + 0 WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND object_id BETWEEN 1 AND 7`,
      [SIRUTA],
    );
    const after = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&datetime=${t0}/..`, { token: danToken });
    expect(after.status).toBe(200);
    expect(after.body.features.map((f: Json) => f.properties.object_id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const stamp = (
      await getPool().query<{ t: Date }>(`SELECT updated_at AS t FROM gis_features WHERE id = $1`, [after.body.features[0].id])
    ).rows[0].t;
    expect(Date.parse(after.body.features[0].properties.updated_at)).toBe(stamp.getTime());
    const before = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&datetime=../${t0}&limit=10000`, { token: danToken });
    expect(before.body.numberReturned).toBe(PARCELS + NO_GEOM - 7);
    const today = t0.slice(0, 10);
    expect(
      (await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&datetime=${today}&limit=10000`, { token: danToken })).body.numberReturned,
    ).toBe(PARCELS + NO_GEOM);
    expect(
      (
        await ogc(`/ogc/collections/parcels/items?datetime=ieri`, {
          token: danToken,
        })
      ).status,
    ).toBe(400);
  });

  it('one item by id, 404 for an unknown one or one of another collection', async () => {
    const page = await ogc(`/ogc/collections/buildings/items?siruta=${SIRUTA}&limit=1`, { token: danToken });
    const id = page.body.features[0].id;
    const one = await ogc(`/ogc/collections/buildings/items/${id}`, {
      token: danToken,
    });
    expect(one.status).toBe(200);
    expect(one.body.type).toBe('Feature');
    expect(one.body.id).toBe(id);
    expect(one.body.links.map((l: Json) => l.rel)).toEqual(['self', 'collection']);
    expect((await ogc(`/ogc/collections/parcels/items/${id}`, { token: danToken })).status).toBe(404);
    expect(
      (
        await ogc(`/ogc/collections/parcels/items/nu-e-uuid`, {
          token: danToken,
        })
      ).status,
    ).toBe(404);
  });

  it('next links walk a whole UAT while the store is written: every feature present throughout exactly once; prev walks back', async () => {
    const before = await getPool().query<{ id: string }>(`SELECT id FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE'`, [
      SIRUTA,
    ]);
    // A sync's writes meanwhile: updates everywhere, new parcels (object ids inside and after the walk), removals of those.
    let writing = true;
    let round = 0;
    let completed = 0;
    const writer = (async () => {
      while (writing) {
        round++;
        await getPool().query(
          `UPDATE gis_features SET updated_at = now(), area_value = area_value + 1 WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND object_id % 7 = $2`,
          [SIRUTA, round % 7],
        );
        await getPool().query(
          `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
           VALUES ('TERENURI_ACTIVE', $1, $2, 'nou', ST_Multi(ST_MakeEnvelope(737000, 461000, 737005, 461005, 3844))),
                  ('TERENURI_ACTIVE', $1, $3, 'nou', NULL)`,
          [SIRUTA, 1_000_000 + round, -(100 + round)],
        );
        await getPool().query(`DELETE FROM gis_features WHERE siruta = $1 AND cadastral_ref = 'nou' AND object_id % 2 = 0`, [SIRUTA]);
        completed++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    // Each page waits for a whole round of writes after it: a walk faster than the writer still
    // meets writes between every two pages (besides those landing while a page is read).
    const roundAfter = async () => {
      const target = completed + 1;
      while (completed < target) await new Promise((r) => setTimeout(r, 5));
    };
    const seen: string[] = [];
    let url: string | undefined = `/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=250`;
    let pages = 0;
    let last: Json;
    try {
      while (url) {
        const r = await ogc(url, { token: danToken });
        expect(r.status).toBe(200);
        seen.push(...r.body.features.map((f: Json) => f.id));
        url = r.body.links.find((l: Json) => l.rel === 'next')?.href;
        pages++;
        await roundAfter();
      }
    } finally {
      writing = false;
      await writer;
      await getPool().query(`DELETE FROM gis_features WHERE siruta = $1 AND cadastral_ref = 'nou'`, [SIRUTA]);
    }
    expect(completed).toBeGreaterThanOrEqual(pages);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil((PARCELS + NO_GEOM) / 250));
    expect(new Set(seen).size).toBe(seen.length);
    const seenSet = new Set(seen);
    expect(before.rows.filter((r) => !seenSet.has(r.id))).toEqual([]);

    // With the store quiet: forwards once more, then back from the last page with the prev links,
    // page by page the same features in the same order, and all of the store's.
    const forward: string[][] = [];
    url = `/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=250`;
    while (url) {
      const r = await ogc(url, { token: danToken });
      forward.push(r.body.features.map((f: Json) => f.id));
      last = r.body;
      url = r.body.links.find((l: Json) => l.rel === 'next')?.href;
    }
    const back: string[][] = [last.features.map((f: Json) => f.id)];
    let prev: string | undefined = last.links.find((l: Json) => l.rel === 'prev')?.href;
    while (prev) {
      const r = await ogc(prev, { token: danToken });
      back.push(r.body.features.map((f: Json) => f.id));
      prev = r.body.links.find((l: Json) => l.rel === 'prev')?.href;
    }
    expect(back.reverse()).toEqual(forward);
    expect(forward.flat().length).toBe(await storeCount(SIRUTA));
  }, 120_000);

  it("a cursor of another UAT puts this UAT's features all after it or all before it", async () => {
    const page = (cursor?: string) =>
      ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=30${cursor ? `&cursor=${cursor}` : ''}`, { token: danToken });
    const first = (await page()).body.features.map((f: Json) => f.id);
    expect(first).toHaveLength(30);
    expect((await page(`a${SIRUTA - 1}_999999`)).body.features.map((f: Json) => f.id)).toEqual(first);
    expect((await page(`a${SIRUTA + 1}_-5`)).body.features).toEqual([]);
    expect((await page(`b${SIRUTA - 1}_999999`)).body.features).toEqual([]);
  });
});

describe('the viewer rule', () => {
  const NEEDLES = ['Popescu', 'Şerban', 'Ănuța', 'Mihai Eminescu', 'Încheiere'];
  const leaks = (text: string) => NEEDLES.filter((n) => text.includes(n));

  it('a full-scope user sees the owners, so the check below can see a leak', async () => {
    const r = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=20`, { token: danToken });
    expect(leaks(r.text)).toEqual(expect.arrayContaining(['Popescu', 'Ănuța']));
    expect(r.body.features.find((f: Json) => f.properties.PROPRIETARI)).toBeDefined();
  });

  it('restricted users (no scope claim by token; basic panel, scope basic by session) get no personal property anywhere', async () => {
    const callers: Array<[string, { token?: string; cookie?: string }]> = [
      ['radu token', { token: raduToken }],
      ['elena session', { cookie: elena.cookie }],
      ['ioana session', { cookie: ioana.cookie }],
    ];
    const page = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=20`, { token: danToken });
    const id = page.body.features[0].id;
    for (const [who, auth] of callers) {
      for (const p of [
        `/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=3000`,
        `/ogc/collections/parcels/items/${id}`,
        `/ogc/collections/parcels/schema`,
      ]) {
        const r = await ogc(p, auth);
        expect([who, p, r.status]).toEqual([who, p, 200]);
        expect([who, p, leaks(r.text)]).toEqual([who, p, []]);
        for (const k of ['PROPRIETARI', 'NR_CF', 'NR_CF_VECHI', 'ADRESA', 'SOLICITANT', 'DOC']) expect(r.text).not.toContain(`"${k}"`);
      }
    }
  });
  it('an enrichment write shows at once, to each viewer as the rule says; a parcel without enrichment has every key null', async () => {
    const page = await ogc(`/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=1`, { token: danToken });
    const id = page.body.features[0].id;
    const original = (await getPool().query(`SELECT enrichment FROM gis_features WHERE id = $1`, [id])).rows[0].enrichment;
    const item = async (token: string) => (await ogc(`/ogc/collections/parcels/items/${id}`, { token })).body.properties;
    try {
      await getPool().query(`UPDATE gis_features SET enrichment = enrichment || '{"PROPRIETARI": "Zamfir Ţugui (1/1)", "CATEGORIE": "V:400"}' WHERE id = $1`, [id]);
      expect(await item(danToken)).toMatchObject({ PROPRIETARI: 'Zamfir Ţugui (1/1)', CATEGORIE: 'V:400' });
      const restricted = await item(raduToken);
      expect(restricted.CATEGORIE).toBe('V:400');
      expect(restricted).not.toHaveProperty('PROPRIETARI');
      expect(JSON.stringify(restricted)).not.toContain('Zamfir');

      await getPool().query(`UPDATE gis_features SET enrichment = NULL WHERE id = $1`, [id]);
      const none = await item(danToken);
      expect(none).toMatchObject({ PROPRIETARI: null, CATEGORIE: null, NR_CAD: null });
      expect(Object.keys(none)).toEqual(Object.keys(page.body.features[0].properties));
      const noneRestricted = await item(raduToken);
      expect(noneRestricted).toMatchObject({ CATEGORIE: null, NR_CAD: null });
      expect(noneRestricted).not.toHaveProperty('PROPRIETARI');
    } finally {
      await getPool().query(`UPDATE gis_features SET enrichment = $2 WHERE id = $1`, [id, original]);
    }
  });
});

describe('GDAL, a client no one here wrote', () => {
  const gdalEnv = (token: string) => ({
    ...process.env,
    GDAL_HTTP_HEADERS: `Authorization: Bearer ${token}`,
    CPL_DEBUG: 'OFF',
  });

  it('ogrinfo lists the four collections with a token, and gets nothing without one', async () => {
    const { stdout } = await run('ogrinfo', ['-ro', '-q', `OAPIF:${base}/ogc`], { env: gdalEnv(danToken) });
    for (const id of ['parcels', 'buildings', 'intravilan', 'uat-boundaries']) expect(stdout).toContain(id);
    await expect(
      run('ogrinfo', ['-ro', '-q', `OAPIF:${base}/ogc`], {
        env: { ...process.env },
      }),
    ).rejects.toThrow();
  });

  async function copyUat(token: string, name: string): Promise<string> {
    const out = path.join(tmp, `${name}.gpkg`);
    await run(
      'ogr2ogr',
      [
        '-f',
        'GPKG',
        out,
        `OAPIF:${base}/ogc/collections/parcels?siruta=${SIRUTA}`,
        '-oo',
        'PAGE_SIZE=1000',
        '-t_srs',
        'EPSG:3844',
        '-nln',
        'parcele',
        'parcels',
      ],
      { env: gdalEnv(token), maxBuffer: 64 * 1024 * 1024 },
    );
    return out;
  }

  async function readCopy(file: string, columns: string): Promise<Array<Record<string, string>>> {
    const { stdout } = await run(
      'ogr2ogr',
      ['-f', 'CSV', '/vsistdout/', file, '-sql', `SELECT ${columns} FROM parcele`, '-lco', 'GEOMETRY=AS_WKT'],
      {
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    const lines = stdout.trim().split('\n');
    const header = lines[0].split(',').map((h) => h.replace(/"/g, ''));
    return lines.slice(1).map((line) => {
      const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'));
      return Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));
    });
  }

  it('ogr2ogr copies one UAT through the pages: the store count, the same cadastral numbers, the store geometries in EPSG:3844', async () => {
    const file = await copyUat(danToken, 'dan');
    const rows = await readCopy(file, 'id, cadastral_ref, PROPRIETARI');
    const store = await getPool().query<{ id: string; cadastral_ref: string }>(
      `SELECT id, cadastral_ref FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE'`,
      [SIRUTA],
    );
    expect(rows.length).toBe(await storeCount(SIRUTA));
    expect(rows.map((r) => r.cadastral_ref).sort()).toEqual(store.rows.map((r) => r.cadastral_ref).sort());
    expect(rows.filter((r) => r.PROPRIETARI !== '').length).toBeGreaterThan(PARCELS / 2);
    // Geometry: every vertex where the store has it (through CRS84 and back: within a millimetre).
    const off = await getPool().query<{ n: number; nulls: number }>(
      `SELECT count(*) FILTER (WHERE (g.wkt = '') <> (f.geom IS NULL)
                                  OR (f.geom IS NOT NULL AND (ST_NPoints(ST_GeomFromText(g.wkt, 3844)) <> ST_NPoints(f.geom)
                                      OR ST_HausdorffDistance(ST_GeomFromText(g.wkt, 3844), f.geom) > 0.001)))::int AS n,
              count(*) FILTER (WHERE f.geom IS NULL)::int AS nulls
         FROM unnest($1::uuid[], $2::text[]) AS g(id, wkt) JOIN gis_features f ON f.id = g.id`,
      [rows.map((r) => r.id), rows.map((r) => r.WKT)],
    );
    expect(off.rows[0]).toEqual({ n: 0, nulls: NO_GEOM });
    const { stdout } = await run('ogrinfo', ['-so', file, 'parcele']);
    expect(stdout).toMatch(/Stereo 70|3844/);
  }, 180_000);

  it("a restricted user's copy has no owner values", async () => {
    const file = await copyUat(raduToken, 'radu');
    const { stdout } = await run('ogrinfo', ['-so', file, 'parcele']);
    expect(stdout).toContain('cadastral_ref');
    expect(stdout).not.toMatch(/^(PROPRIETARI|PROPRIETARI_VECHI|NR_CF|ADRESA|SOLICITANT|DOC): /m);
    const { stdout: all } = await run('ogr2ogr', ['-f', 'CSV', '/vsistdout/', file, 'parcele'], { maxBuffer: 256 * 1024 * 1024 });
    expect(all.split('\n').length).toBeGreaterThan(PARCELS);
    for (const n of ['Popescu', 'Ănuța', 'Eminescu']) expect(all).not.toContain(n);
  }, 180_000);
});
