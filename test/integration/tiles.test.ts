/**
 * Tiles from PostGIS through the real Express app: MVT decoded with @mapbox/vector-tile, TileJSON,
 * the catalog, ETag/304 and version bumps, the setup/optimize routes, and the PMTiles overview
 * built with GDAL + the Protomaps converter, uploaded to MinIO and read back through
 * /tiles/overview.pmtiles with the npm `pmtiles` library.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { FetchSource, PMTiles, TileType } from 'pmtiles';
import { config } from '../../domain/config';
import { E2E_BASE_URL } from '../helpers/e2e';
import { closePool, createTilePool, getPool } from '../../domain/db/pool';
import { ensureBuckets } from '../../domain/storage/s3';
import { TILE_SOURCES } from '../../domain/tiles/sources';
import { buildOverviewArchive } from '../../domain/tiles/archive';
import { closeTemporalClient, getTemporalClient } from '../../temporal/client';
import { OVERVIEW_BUILD_WORKFLOW_ID } from '../../temporal/common/singletons';
import type { OverviewArchiveBuildResult } from '../../domain/tiles/jobTypes';
import { LOW_ZOOM_EXTENT } from '../../domain/tiles/density';
import { clearTileCache, renderTile, statementFor } from '../../domain/tiles/mvt';
import { tileSource } from '../../domain/tiles/sources';
import { bumpTileVersion } from '../../domain/tiles/versions';
import {
  plantTileTestData,
  rawRequest,
  removeTileTestData,
  sessionCookie,
  startTestApp,
  tileOf,
  TILE_TEST_SIRUTA,
  type PlantedTileData,
} from '../helpers/tilesFixtures';

let app: { url: string; close(): Promise<void> };
let user: string;
let admin: string;
let planted: PlantedTileData;

const get = (path: string, cookie: string | null, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, { headers: { ...(cookie ? { cookie } : {}), ...headers } });

const rawGet = (method: string, path: string, headers: Record<string, string>) => rawRequest(`${app.url}${path}`, headers, method);

function decode(buf: ArrayBuffer): VectorTile {
  return new VectorTile(new PbfReader(new Uint8Array(buf)));
}

beforeAll(async () => {
  planted = await plantTileTestData(getPool());
  clearTileCache();
  app = await startTestApp();
  user = await sessionCookie(getPool(), 'dan@birou.ro');
  admin = await sessionCookie(getPool(), 'ana@birou.ro', { admin: true });
});

afterAll(async () => {
  await removeTileTestData(getPool());
  await app?.close();
  await closeTemporalClient();
  await closePool();
});

describe('vector tiles from PostGIS', () => {
  test('without a session /tiles answers 401 JSON', async () => {
    const { z, x, y } = planted.tile;
    for (const path of ['/tiles/catalog', '/tiles/gis_terenuri', `/tiles/gis_terenuri/${z}/${x}/${y}`, '/tiles/overview.pmtiles', '/tiles/nothing/here']) {
      const res = await get(path, null);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'unauthorized' });
    }
  });

  test('a session cookie that names no session: 401 on a tile, and the dead cookie cleared', async () => {
    const { z, x, y } = planted.tile;
    const res = await get(`/tiles/gis_terenuri/${z}/${x}/${y}`, 'cgp_session=no-such-session');
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unauthorized' });
    expect(res.headers.get('set-cookie')).toMatch(/^cgp_session=;.*Expires=Thu, 01 Jan 1970/);
    // A live session's cookie: the tile itself, and no cookie touched.
    const ok = await get(`/tiles/gis_terenuri/${z}/${x}/${y}`, user);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toBeNull();
  });

  test('a parcel tile decodes as MVT with the slim columns and the planted parcels', async () => {
    const { z, x, y } = planted.tile;
    const res = await get(`/tiles/gis_terenuri/${z}/${x}/${y}.pbf`, user);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.mapbox-vector-tile');
    const tile = decode(await res.arrayBuffer());
    expect(Object.keys(tile.layers)).toEqual(['gis_terenuri']);
    const layer = tile.layers.gis_terenuri;
    expect(layer.extent).toBe(4096);
    const ours = Array.from({ length: layer.length }, (_, i) => layer.feature(i)).filter((f) => f.properties.siruta === TILE_TEST_SIRUTA);
    expect(ours.map((f) => f.properties.cadastral_ref).sort()).toEqual(planted.parcels.map((p) => p.cadastralRef).sort());
    for (const f of ours) {
      expect(Object.keys(f.properties).sort()).toEqual(['area_value', 'cadastral_ref', 'id', 'is_active', 'layer_id', 'object_id', 'siruta'].sort());
      expect(f.properties.layer_id).toBe('TERENURI_ACTIVE');
      expect(f.properties.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(f.id).toBe(f.properties.object_id); // the MVT feature id, on every zoom
      expect(VectorTileTypeName(f.type)).toBe('Polygon');
      // A 20 m square at z16 (~6.4 m per tile unit/64) spans about 200 tile units.
      const ring = f.loadGeometry()[0];
      const xs = ring.map((p) => p.x);
      expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(150);
      expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(260);
    }
  });

  test('a tile connection runs without JIT and plans its tile statement once, not again for each tile', async () => {
    // Left to choose, PostgreSQL planned every sparse tile again (more time than running it).
    const pool = createTilePool(config.db.url);
    const client = await pool.connect();
    try {
      const { z, x, y } = planted.tile;
      for (let i = 0; i < 8; i++) await renderTile(client, { source: 'gis_terenuri_status', z, x: x + (i % 3) - 1, y });
      const session = await client.query(`SELECT current_setting('jit') AS jit, current_setting('plan_cache_mode') AS plans`);
      expect(session.rows[0]).toEqual({ jit: 'off', plans: 'force_generic_plan' });
      const name = statementFor(tileSource('gis_terenuri_status')!, z).name;
      const plans = await client.query('SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = $1', [name]);
      expect(plans.rows).toEqual([{ generic: 8, custom: 0 }]);
    } finally {
      client.release();
      await pool.end();
    }
  });

  test('on the wire: gzip for a client that asks for it, the same MVT plain for one that does not, and HEAD', async () => {
    const { z, x, y } = planted.tile;
    const path = `/tiles/gis_terenuri/${z}/${x}/${y}`;
    const zipped = await rawGet('GET', path, { cookie: user, 'accept-encoding': 'gzip' });
    const plain = await rawGet('GET', path, { cookie: user });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    // The same cached version of the tile both times: the same MVT once decoded.
    expect(zipped.headers.etag).toBe(plain.headers.etag);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(decode(new Uint8Array(plain.body).buffer).layers.gis_terenuri.length).toBeGreaterThanOrEqual(planted.parcels.length);
    const head = await rawGet('HEAD', path, { cookie: user });
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe(plain.headers.etag);
    expect(head.body.length).toBe(0);
  });

  test('the status views carry has_enrichment, has_building and build_legal', async () => {
    const { z, x, y } = planted.tile;
    const parcels = decode(await (await get(`/tiles/gis_terenuri_status/${z}/${x}/${y}.mvt`, user)).arrayBuffer()).layers.gis_terenuri_status;
    const byRef = new Map(Array.from({ length: parcels.length }, (_, i) => parcels.feature(i)).map((f) => [f.properties.cadastral_ref, f.properties]));
    // z16: the full slim column list of spec 4.1 plus the status flags.
    expect(Object.keys(byRef.get('997001-101')!).sort()).toEqual(
      ['id', 'layer_id', 'siruta', 'object_id', 'cadastral_ref', 'area_value', 'is_active', 'has_enrichment', 'has_building', 'build_legal'].sort(),
    );
    expect(byRef.get('997001-101')).toMatchObject({ has_enrichment: 1, has_building: 1, build_legal: 1 });
    expect(byRef.get('997001-102')).toMatchObject({ has_enrichment: 0 });
    expect(byRef.get('997001-102')?.build_legal).toBeUndefined(); // NULL = unknown: no property

    const buildings = decode(await (await get(`/tiles/gis_cladiri_status/${z}/${x}/${y}`, user)).arrayBuffer()).layers.gis_cladiri_status;
    expect(buildings.length).toBeGreaterThanOrEqual(1);
    const b = Array.from({ length: buildings.length }, (_, i) => buildings.feature(i)).find((f) => f.properties.cadastral_ref === planted.building.cadastralRef);
    // build_legal comes from the parent parcel 997001-101's enrichment.
    expect(b?.properties).toMatchObject({ has_building: 1, build_legal: 1, has_enrichment: 0 });
  });

  test('below zoom 16 a parcel tile holds only what the map draws: status flags, siruta, object_id as feature id', async () => {
    const { x, y } = tileOf(23.5899, 46.7697, 14);
    const res = await get(`/tiles/gis_terenuri_status/14/${x}/${y}`, user);
    expect(res.status).toBe(200);
    const layer = decode(await res.arrayBuffer()).layers.gis_terenuri_status;
    expect(layer.extent).toBe(LOW_ZOOM_EXTENT);
    const ours = Array.from({ length: layer.length }, (_, i) => layer.feature(i)).filter((f) => f.properties.siruta === TILE_TEST_SIRUTA);
    // Identified by (siruta, feature id = object_id), the key the feature route takes.
    expect(ours.map((f) => f.id).sort()).toEqual(planted.parcels.map((p) => p.objectId).sort());
    const byObjectId = new Map(ours.map((f) => [f.id, f.properties]));
    expect(byObjectId.get(1)).toEqual({ siruta: TILE_TEST_SIRUTA, has_enrichment: 1, has_building: 1, build_legal: 1 });
    expect(byObjectId.get(2)).toEqual({ siruta: TILE_TEST_SIRUTA, has_enrichment: 0 }); // NULL flags: absent
    for (const f of ours) expect(VectorTileTypeName(f.type)).toBe('Polygon');

    // Layer-mixing sources keep layer_id (the map picks intravilan out of gis_administrativ by it).
    const features = decode(await (await get(`/tiles/gis_terenuri/14/${x}/${y}`, user)).arrayBuffer()).layers.gis_terenuri;
    const f1 = Array.from({ length: features.length }, (_, i) => features.feature(i)).find((f) => f.properties.siruta === TILE_TEST_SIRUTA && f.id === 1);
    expect(f1?.properties).toEqual({ layer_id: 'TERENURI_ACTIVE', siruta: TILE_TEST_SIRUTA });
  });

  test('UAT sources render their zoom range; outside it and over empty land the answer is 204', async () => {
    const { x, y } = tileOf(23.5899, 46.7697, 12);
    const res = await get(`/tiles/gis_uats_z12/12/${x}/${y}`, user);
    expect(res.status).toBe(200);
    const layer = decode(await res.arrayBuffer()).layers.gis_uats_z12;
    const f = Array.from({ length: layer.length }, (_, i) => layer.feature(i)).find((g) => g.properties.siruta === TILE_TEST_SIRUTA);
    expect(f?.properties).toMatchObject({ name: 'Cluj-Napoca (test tiles)', county: 'Cluj', workspace_pk: 997 });

    const low = tileOf(23.5899, 46.7697, 5);
    expect((await get(`/tiles/gis_terenuri/5/${low.x}/${low.y}`, user)).status).toBe(204); // below minzoom 10
    expect((await get(`/tiles/gis_terenuri/16/0/0`, user)).status).toBe(204); // the Arctic Ocean
    const far = await get(`/tiles/gis_uats_z0/3/0/0`, user);
    expect(far.status).toBe(204);
    expect(far.headers.get('etag')).toBeTruthy();
  });

  test('bad addresses: unknown source 404, out-of-range coordinates 400', async () => {
    const unknown = await get('/tiles/gis_secret/1/0/0', user);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: 'not_found' });
    expect((await get('/tiles/gis_terenuri/3/8/0', user)).status).toBe(400);
    expect((await get('/tiles/gis_terenuri/3/0/0.png', user)).status).toBe(400);
    expect((await get('/tiles/public.gis_features', user)).status).toBe(404);
  });

  test('ETag, 304 on If-None-Match, the in-memory cache, and a version bump that invalidates both', async () => {
    const { z, x, y } = planted.tile;
    const path = `/tiles/gis_terenuri/${z}/${x}/${y}`;
    const first = await get(path, user);
    const etag = first.headers.get('etag')!;
    // Weak: the same version of a tile is the same features, not always in the same order.
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe(`private, max-age=${config.tiles.maxAgeSeconds}`);
    await first.arrayBuffer();

    const again = await get(path, user);
    expect(again.headers.get('x-tile-cache')).toBe('hit');
    expect(again.headers.get('etag')).toBe(etag);
    await again.arrayBuffer();

    const revalidated = await get(path, user, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);

    // A sync of the parcels bumps the version: new ETag, rendered again, shows the new parcel.
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
       SELECT 'TERENURI_ACTIVE', siruta, 4, '997001-104', ST_Translate(geom, 0, -40) FROM gis_features
        WHERE siruta = $1 AND object_id = 2 AND layer_id = 'TERENURI_ACTIVE'`,
      [TILE_TEST_SIRUTA],
    );
    const before = await get(path, user, { 'if-none-match': etag });
    expect(before.status).toBe(304); // not bumped yet: the version says nothing changed
    await bumpTileVersion(getPool(), ['gis_terenuri']);
    const after = await get(path, user, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.headers.get('x-tile-cache')).toBe('miss');
    const layer = decode(await after.arrayBuffer()).layers.gis_terenuri;
    const refs = Array.from({ length: layer.length }, (_, i) => layer.feature(i).properties.cadastral_ref);
    expect(refs).toContain('997001-104');
    await getPool().query(`DELETE FROM gis_features WHERE siruta = $1 AND object_id = 4`, [TILE_TEST_SIRUTA]);
  });

  test('a bump made by another process reaches this one within the version TTL, with no request waiting for it', async () => {
    const { z, x, y } = planted.tile;
    const path = `/tiles/gis_terenuri/${z}/${x}/${y}`;
    const first = await get(path, user);
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    // Straight in SQL, as another process's bumpTileVersion would: this process's copy is not told.
    await getPool().query(
      `INSERT INTO tile_versions (source, version, bumped_at) VALUES ('gis_terenuri', 1, clock_timestamp())
       ON CONFLICT (source) DO UPDATE SET version = tile_versions.version + 1, bumped_at = clock_timestamp()`,
    );
    const bumpedAt = Date.now();
    let seenAfter = Infinity;
    while (Date.now() - bumpedAt < 3 * config.tiles.versionTtlMs + 1000) {
      const res = await get(path, user, { 'if-none-match': etag });
      await res.arrayBuffer();
      if (res.status === 200) {
        expect(res.headers.get('etag')).not.toBe(etag);
        seenAfter = Date.now() - bumpedAt;
        break;
      }
      expect(res.status).toBe(304);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seenAfter).toBeLessThan(config.tiles.versionTtlMs + 500);
  });

  test('TileJSON 3.0.0 per source, with absolute tile URLs and the layer fields', async () => {
    const res = await get('/tiles/gis_terenuri_status', user);
    expect(res.status).toBe(200);
    const tj = (await res.json()) as Record<string, any>;
    expect(tj.tilejson).toBe('3.0.0');
    expect(tj.tiles).toEqual([`${config.app.publicUrl}/tiles/gis_terenuri_status/{z}/{x}/{y}`]);
    expect(tj.minzoom).toBe(10);
    expect(tj.maxzoom).toBe(22);
    expect(tj.bounds).toHaveLength(4);
    expect(tj.bounds[0]).toBeLessThan(tj.bounds[2]);
    expect(tj.vector_layers).toHaveLength(1);
    expect(tj.vector_layers[0].id).toBe('gis_terenuri_status');
    const fields = tj.vector_layers[0].fields as Record<string, string>;
    expect(Object.keys(fields)).toEqual(expect.arrayContaining(['id', 'siruta', 'object_id', 'cadastral_ref', 'has_enrichment', 'has_building', 'build_legal']));
    for (const v of Object.values(fields)) expect(typeof v).toBe('string');
    // Which attribute is in which tiles: the detail ones from zoom 16, the rest on every zoom.
    for (const name of ['id', 'layer_id', 'object_id', 'cadastral_ref', 'area_value', 'is_active']) expect(fields[name]).toMatch(/^\w+, de la zoom 16: /);
    for (const name of ['siruta', 'has_enrichment', 'has_building', 'build_legal']) expect(fields[name]).not.toMatch(/de la zoom/);
    expect(tj.vector_layers[0].description).toMatch(/Id-ul fiecărui element MVT este object_id/);
    // A layer-mixing source has layer_id on every zoom.
    const administrativ = (await (await get('/tiles/gis_administrativ', user)).json()) as Record<string, any>;
    expect(administrativ.vector_layers[0].fields.layer_id).toBe('String: Stratul de origine');
  });

  test('the catalog lists every tile source of spec 4.1', async () => {
    const res = await get('/tiles/catalog', user);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { sources: Array<{ name: string; tilejson: string; minzoom: number; maxzoom: number }>; overview: { url: string } };
    expect(body.sources.map((s) => s.name)).toEqual([
      'gis_uats_z0',
      'gis_uats_z5',
      'gis_uats_z8',
      'gis_uats_z12',
      'gis_features',
      'gis_terenuri',
      'gis_cladiri',
      'gis_administrativ',
      'gis_documentatii',
      'gis_terenuri_status',
      'gis_cladiri_status',
    ]);
    expect(body.sources.map((s) => s.name)).toEqual(TILE_SOURCES.map((s) => s.name));
    expect(body.sources[0]).toMatchObject({ minzoom: 0, maxzoom: 4, tilejson: `${config.app.publicUrl}/tiles/gis_uats_z0` });
    expect(body.overview.url).toBe(`${config.app.publicUrl}/tiles/overview.pmtiles`);
  });
});

describe('setup and optimize routes (spec 4.1)', () => {
  test('are admin-only', async () => {
    const res = await fetch(`${app.url}/api/geoportal/setup-enrichment-views`, { method: 'POST', headers: { cookie: user } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'forbidden' });
    expect((await fetch(`${app.url}/api/geoportal/setup-views`)).status).toBe(401);
  });

  test('report what exists and what they did, and leave the tiles working', async () => {
    const post = (path: string) => fetch(`${app.url}${path}`, { method: 'POST', headers: { cookie: admin } });
    const state = await get('/api/geoportal/setup-views', admin);
    expect(state.status).toBe(200);
    const s = (await state.json()) as { exists: boolean; views: Array<{ name: string; exists: boolean }> };
    expect(s.exists).toBe(true);
    expect(s.views.map((v) => v.name)).toEqual(['tiles.gis_uats_z0', 'tiles.gis_uats_z5', 'tiles.gis_uats_z8', 'tiles.gis_uats_z12']);

    const setup = (await (await post('/api/geoportal/setup-views')).json()) as { created: string[]; existing: string[] };
    expect(setup.created).toEqual([]);
    expect(setup.existing).toHaveLength(4);

    const ov = await post('/api/geoportal/optimize-views');
    expect(ov.status).toBe(200);
    expect(await ov.json()).toMatchObject({ columnsAdded: [], indexesCreated: [], trigger: 'public.f_gis_uats_derive_geom' });

    const ot = (await (await post('/api/geoportal/optimize-tiles')).json()) as { recreated: string[]; columns: string[] };
    expect(ot.columns).toEqual(['id', 'layer_id', 'siruta', 'object_id', 'cadastral_ref', 'area_value', 'is_active', 'geom']);
    expect(ot.recreated).toEqual(expect.arrayContaining(['tiles.gis_terenuri', 'tiles.gis_terenuri_status', 'tiles.gis_cladiri_status']));

    const ev = (await (await post('/api/geoportal/setup-enrichment-views')).json()) as { recreated: string[]; columns: string[] };
    expect(ev.recreated).toEqual(['tiles.gis_terenuri_status', 'tiles.gis_cladiri_status']);
    expect(ev.columns).toEqual(expect.arrayContaining(['has_enrichment', 'has_building', 'build_legal']));

    clearTileCache();
    const { z, x, y } = planted.tile;
    expect((await get(`/tiles/gis_terenuri_status/${z}/${x}/${y}`, user)).status).toBe(200);
  });
});

describe('tile infrastructure status (issue 30)', () => {
  test('internal addresses and the builder\'s error output reach administrators only', async () => {
    const asUser = await (await get('/api/geoportal/tiles/status', user)).json();
    expect(asUser.tiles).toMatchObject({ serverUrl: null, webhookUrl: null, builder: 'ours' });
    for (const b of asUser.builds) expect(b.error === null || b.error === 'Construirea nu a reușit; administratorii au detaliile.').toBe(true);
    const asAdmin = await (await get('/api/geoportal/tiles/status', admin)).json();
    // The stack builds the archive itself (a child workflow): no webhook to show, even to an admin.
    expect(asAdmin.tiles).toMatchObject({ builder: 'ours', webhookUrl: null });
    // The monitor page (served by the stack's web process): the mode in plain Romanian, no
    // webhook, no PostGIS function name.
    const monitor = async (cookie: string) => (await fetch(`${E2E_BASE_URL}/infrastructura-harti`, { headers: { cookie } })).text();
    const page = await monitor(user);
    expect(page).toContain('generate din baza de date');
    expect(page).not.toContain('ST_AsMVT');
    expect(page).not.toContain('rebuild-webhook');
    const adminPage = await monitor(admin);
    expect(adminPage).toContain('construită de acest serviciu');
    expect(adminPage).not.toContain('rebuild-webhook');
  });
});

describe('PMTiles overview archive', () => {
  beforeAll(async () => {
    await ensureBuckets();
    // The stack's web process may be building the archive it found missing at start-up.
    for (let i = 0; i < 300; i++) {
      const r = await getPool().query(`SELECT count(*)::int AS n FROM tile_archive_builds WHERE status = 'running'`);
      if (r.rows[0].n === 0) break;
      await new Promise((res) => setTimeout(res, 200));
    }
  });

  test('the builder writes a PMTiles v3 archive that reads back with siruta, cadastral_ref and object_id only', async () => {
    // The build the workflow's activity runs; another build running meanwhile is waited for.
    const buildId = await buildOverviewArchive(getPool());

    const source = new FetchSource(`${app.url}/tiles/overview.pmtiles`, new Headers({ cookie: user }));
    const archive = new PMTiles(source);
    const header = await archive.getHeader();
    expect(header.specVersion).toBe(3);
    expect(header.tileType).toBe(TileType.Mvt);
    expect(header.minZoom).toBe(0);
    expect(header.maxZoom).toBe(14);
    expect(header.numAddressedTiles).toBeGreaterThan(0);
    const metadata = (await archive.getMetadata()) as { vector_layers: Array<{ id: string; fields: Record<string, string> }> };
    expect(metadata.vector_layers.map((l) => l.id).sort()).toEqual(['parcels', 'uats']);

    // Parcels at z14 over the planted place.
    const t14 = tileOf(23.5899, 46.7697, 14);
    const parcelsTile = await archive.getZxy(14, t14.x, t14.y);
    expect(parcelsTile).toBeDefined();
    const parcels = decode(parcelsTile!.data).layers.parcels;
    const ours = Array.from({ length: parcels.length }, (_, i) => parcels.feature(i)).filter((f) => f.properties.siruta === TILE_TEST_SIRUTA);
    expect(ours.map((f) => f.properties.cadastral_ref).sort()).toEqual(planted.parcels.map((p) => p.cadastralRef).sort());
    for (const f of ours) expect(Object.keys(f.properties).sort()).toEqual(['cadastral_ref', 'object_id', 'siruta']);
    expect(ours.map((f) => f.properties.object_id).sort()).toEqual([1, 2, 3]);

    // Every tile of a sample (the planted place from z10 to z14) decodes as MVT with parcels.
    for (let zoom = 10; zoom <= 14; zoom++) {
      const t = tileOf(23.5899, 46.7697, zoom);
      const sample = await archive.getZxy(zoom, t.x, t.y);
      expect(sample).toBeDefined();
      const decoded = decode(sample!.data);
      expect(Object.keys(decoded.layers).sort()).toEqual(zoom <= 12 ? ['parcels', 'uats'] : ['parcels']);
      expect(decoded.layers.parcels.length).toBeGreaterThanOrEqual(planted.parcels.length);
    }

    // UAT outlines at a low zoom; no parcels there.
    const t6 = tileOf(23.5899, 46.7697, 6);
    const low = decode((await archive.getZxy(6, t6.x, t6.y))!.data);
    expect(low.layers.parcels).toBeUndefined();
    const uats = low.layers.uats;
    const uat = Array.from({ length: uats.length }, (_, i) => uats.feature(i)).find((f) => f.properties.siruta === TILE_TEST_SIRUTA);
    expect(uat && Object.keys(uat.properties)).toEqual(['siruta']);

    const rows = await getPool().query(`SELECT status, size_bytes, parcel_count FROM tile_archive_builds WHERE id = $1`, [buildId]);
    expect(rows.rows[0]).toMatchObject({ status: 'done' });
    expect(Number(rows.rows[0].size_bytes)).toBeGreaterThan(100);
  });

  test('/tiles/overview.pmtiles answers Range requests with 206, Content-Range, Accept-Ranges and ETag', async () => {
    const full = await get('/tiles/overview.pmtiles', user);
    expect(full.status).toBe(200);
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    const size = Number(full.headers.get('content-length'));
    const bytes = new Uint8Array(await full.arrayBuffer());
    expect(bytes.length).toBe(size);
    expect(Buffer.from(bytes.slice(0, 7)).toString('latin1')).toBe('PMTiles');

    const part = await get('/tiles/overview.pmtiles', user, { range: 'bytes=0-126' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-126/${size}`);
    expect(part.headers.get('accept-ranges')).toBe('bytes');
    const etag = part.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(0, 127));

    expect((await get('/tiles/overview.pmtiles', user, { 'if-none-match': etag })).status).toBe(304);
    const head = await fetch(`${app.url}/tiles/overview.pmtiles`, { method: 'HEAD', headers: { cookie: user } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(size));
    expect(head.headers.get('etag')).toBe(etag);
    expect((await get('/tiles/overview.pmtiles', user, { range: `bytes=${size + 10}-${size + 20}` })).status).toBe(416);
  });

  test('the rebuild webhook needs its token, answers 202 when it starts and 409 while a build runs', async () => {
    const hook = (token?: string) =>
      fetch(`${app.url}/tiles/rebuild-webhook`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect((await hook()).status).toBe(401);
    expect((await hook('wrong')).status).toBe(401);

    // Another test file's build may be running: the webhook answers 409 until it ends.
    let ok = await hook(config.tiles.rebuildWebhookToken);
    for (let i = 0; i < 300 && ok.status === 409; i++) {
      await new Promise((res) => setTimeout(res, 200));
      ok = await hook(config.tiles.rebuildWebhookToken);
    }
    expect(ok.status).toBe(202);
    const { buildId } = (await ok.json()) as { buildId: string };
    expect(buildId).toBe(OVERVIEW_BUILD_WORKFLOW_ID);
    // The build is a workflow with one fixed id: while it runs, the webhook answers 409.
    const busy = await hook(config.tiles.rebuildWebhookToken);
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: 'already_running' });

    // It ends as a done build record, and the next test file starts from a quiet builder.
    const client = await getTemporalClient();
    const result = (await client.workflow.getHandle(buildId).result()) as OverviewArchiveBuildResult;
    const r = await getPool().query(`SELECT status FROM tile_archive_builds WHERE id = $1`, [result.buildId]);
    expect(r.rows[0].status).toBe('done');
  });
});

function VectorTileTypeName(type: number): string {
  return ['Unknown', 'Point', 'LineString', 'Polygon'][type];
}
