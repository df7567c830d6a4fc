/**
 * The simulator read by real GIS tooling, as issue 4's "Done when" asks: curl pages through a
 * whole UAT's parcels the way a GIS client does (count, ids, pages of 1000 by resultOffset until
 * exceededTransferLimit is absent), and GDAL's ESRIJSON driver (ogr2ogr, ogrinfo) reads a layer
 * query URL with the session cookie passed through GDAL_HTTP_COOKIE.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import { API, SimClient } from '../helpers/landregSimClient';

const run = promisify(execFile);
const BRAILA = 42682; // county-seat municipality of Brăila: 2,400 parcels, 3 pages
const SFANTU_GHEORGHE = 63394;

let sim: LandregSimulator;
let c: SimClient;
let dir: string;

beforeAll(async () => {
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
  c = new SimClient(sim.url);
  await c.login();
  dir = await mkdtemp(path.join(tmpdir(), 'landreg-gis-'));
});

afterAll(async () => {
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const truthIds = async (siruta: number, layerId: string): Promise<number[]> =>
  (await c.control('GET', `/truth?siruta=${siruta}&layerId=${layerId}`)).features.map((f: any) => f.objectId);

describe('curl, as a GIS client pages', () => {
  test('log in with a cookie jar, count, list ids, then page 1000 at a time until the limit flag is gone', async () => {
    const jar = path.join(dir, 'cookies.txt');
    const curl = async (...args: string[]) => (await run('curl', ['-sS', '--fail-with-body', '-b', jar, '-c', jar, ...args], { maxBuffer: 64 << 20 })).stdout;
    const login = JSON.parse(
      await curl('-d', `j_username=${config.landreg.username}`, '-d', `j_password=${config.landreg.password}`, `${sim.url}${API}/authentication`),
    );
    expect(login.authenticated).toBe(true);

    const base = `${sim.url}${API}/map/rest/TERENURI_ACTIVE/query`;
    const where = `ADMIN_UNIT_ID=${BRAILA}`;
    const get = async (params: Record<string, string>) => JSON.parse(await curl('-G', base, ...Object.entries({ f: 'json', where, ...params }).flatMap(([k, v]) => ['--data-urlencode', `${k}=${v}`])));

    const { count } = await get({ returnCountOnly: 'true' });
    const { objectIds } = await get({ returnIdsOnly: 'true' });
    const features: any[] = [];
    let pages = 0;
    for (let offset = 0; ; pages++) {
      const page = await get({ outFields: '*', resultOffset: String(offset), resultRecordCount: '1000' });
      expect(page.error).toBeUndefined();
      expect(page.spatialReference.wkid).toBe(3844);
      features.push(...page.features);
      offset += page.features.length;
      if (!page.exceededTransferLimit) break;
      expect(page.features).toHaveLength(1000);
    }
    const ids = features.map((f) => f.attributes.OBJECTID);
    expect(pages + 1).toBe(Math.ceil(count / 1000));
    expect(ids).toHaveLength(count);
    expect(ids).toEqual(objectIds);
    expect(ids).toEqual(await truthIds(BRAILA, 'TERENURI_ACTIVE'));
    expect(new Set(features.map((f) => f.attributes.ADMIN_UNIT_ID))).toEqual(new Set([BRAILA]));
    // Null geometries are rare and explicit; the rest are closed ESRI rings.
    const rings = features.filter((f) => f.geometry).map((f) => f.geometry.rings[0]);
    expect(rings.length).toBeGreaterThan(count * 0.99);
    for (const r of rings) expect(r[r.length - 1]).toEqual(r[0]);
  });
});

describe('GDAL ESRIJSON driver', () => {
  const url = (layer: string, params: Record<string, string>) =>
    `ESRIJSON:${sim.url}${API}/map/rest/${layer}/query?${new URLSearchParams({ where: `ADMIN_UNIT_ID=${BRAILA}`, outFields: '*', f: 'json', ...params })}`;
  const gdal = async (tool: 'ogr2ogr' | 'ogrinfo', args: string[]) =>
    (await run(tool, ['--config', 'GDAL_HTTP_COOKIE', c.cookie, ...args], { maxBuffer: 256 << 20 })).stdout;

  test('ogr2ogr converts a paged layer query to GeoJSON: every parcel once, in EPSG:3844', async () => {
    const out = JSON.parse(await gdal('ogr2ogr', ['-f', 'GeoJSON', '/vsistdout/', url('TERENURI_ACTIVE', {})]));
    expect(out.crs.properties.name).toBe('urn:ogc:def:crs:EPSG::3844');
    const ids = out.features.map((f: any) => f.properties.OBJECTID);
    expect(ids).toEqual(await truthIds(BRAILA, 'TERENURI_ACTIVE'));
    expect(out.features.find((f: any) => f.geometry)?.geometry.type).toBe('Polygon');
    expect(out.features[0].properties.NATIONAL_CADASTRAL_REFERENCE).toEqual(expect.any(String));
  });

  test('ogrinfo reports the feature count and the Stereo 70 CRS of a building layer query', async () => {
    const where = `ADMIN_UNIT_ID=${SFANTU_GHEORGHE}`;
    const info = await gdal('ogrinfo', ['-al', '-so', url('CLADIRI_ACTIVE', { where })]);
    const { count } = await c.json(c.query('CLADIRI_ACTIVE', { where, returnCountOnly: 'true' }));
    expect(count).toBeGreaterThan(1000); // more than one page
    expect(info).toContain(`Feature Count: ${count}`);
    expect(info).toContain('Geometry: Polygon');
    expect(info).toMatch(/Stereo ?70/);
    expect(info).toContain('ID["EPSG",3844]');
  });

  test('with duplicatePages on, GDAL reads the overlapping pages as given; orderByFields in the URL keeps it exact', async () => {
    const truth = await truthIds(BRAILA, 'TERENURI_ACTIVE');
    const read = async (params: Record<string, string>) =>
      JSON.parse(await gdal('ogr2ogr', ['-f', 'GeoJSON', '/vsistdout/', url('TERENURI_ACTIVE', { outFields: 'OBJECTID', returnGeometry: 'false', ...params })])).features.map(
        (f: any) => f.properties.OBJECTID as number,
      );
    try {
      await c.control('POST', '/faults', { duplicatePages: true });
      const naive = await read({});
      expect(naive.length).toBe(truth.length + Math.ceil(truth.length / 1000) - 1);
      expect([...new Set(naive)]).toEqual(truth);
      expect(await read({ orderByFields: 'OBJECTID ASC' })).toEqual(truth);
    } finally {
      await c.control('DELETE', '/faults');
    }
    expect(await read({})).toEqual(truth);
  });
});
