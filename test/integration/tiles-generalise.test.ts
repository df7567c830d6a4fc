/**
 * Low-zoom generalisation of the MVT query (domain/tiles/mvt.ts, docs/tiles.md "Performance"),
 * rendered from the dev stack's PostGIS: below z16 polygons smaller than one display pixel² are
 * left out and the rest simplified to about a pixel; lines are never dropped by area; z16 is exact.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { closePool, getPool } from '../../domain/db/pool';
import { wgs84ToStereo70 } from '../../domain/geo/epsg3844';
import { pixelSize3857, renderTile } from '../../domain/tiles/mvt';
import { removeTileTestData, tileCentre, tileOf } from '../helpers/tilesFixtures';

const SIRUTA = 997003;
/** A z16 tile in Cluj-Napoca; every planted feature lies well inside it. */
const Z16 = tileOf(23.6, 46.77, 16);
const [cx, cy] = wgs84ToStereo70(tileCentre(16, Z16.x, Z16.y));
/** Mercator area / ground area at 46.77°N (1 / cos²φ). */
const MERCATOR_AREA_FACTOR = 1 / Math.cos((46.77 * Math.PI) / 180) ** 2;

const square = (x: number, y: number, size: number) =>
  `POLYGON((${x} ${y}, ${x + size} ${y}, ${x + size} ${y + size}, ${x} ${y + size}, ${x} ${y}))`;

const planted: Array<{ ref: string; layer: string; wkt: string; buffer?: number }> = [
  { ref: 'tiny', layer: 'TERENURI_ACTIVE', wkt: square(cx - 150, cy - 150, 2) }, // 4 m²
  { ref: 'small', layer: 'TERENURI_ACTIVE', wkt: square(cx - 100, cy - 150, 6) }, // 36 m²
  { ref: 'round', layer: 'TERENURI_ACTIVE', wkt: `POINT(${cx + 40} ${cy + 40})`, buffer: 100 }, // 257 vertices
  { ref: 'line', layer: 'TEST_LINES', wkt: `LINESTRING(${cx - 150} ${cy + 100}, ${cx - 145} ${cy + 100})` }, // 5 m
];

async function features(source: string, z: number): Promise<Map<string, VectorTileFeature>> {
  const shift = 16 - z;
  const body = await renderTile({ source, z, x: Z16.x >> shift, y: Z16.y >> shift });
  const layer = new VectorTile(new PbfReader(body)).layers[source];
  const out = new Map<string, VectorTileFeature>();
  for (let i = 0; i < (layer?.length ?? 0); i++) {
    const f = layer.feature(i);
    if (f.properties.siruta === SIRUTA) out.set(String(f.properties.cadastral_ref), f);
  }
  return out;
}

const vertices = (f: VectorTileFeature | undefined) => (f ? f.loadGeometry().reduce((n, ring) => n + ring.length, 0) : 0);

beforeAll(async () => {
  await removeTileTestData(getPool(), SIRUTA);
  let objectId = 1;
  for (const p of planted) {
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
       VALUES ($1, $2, $3, $4, CASE WHEN $6::float8 IS NULL THEN ST_GeomFromText($5, 3844) ELSE ST_Buffer(ST_GeomFromText($5, 3844), $6::float8, 64) END)`,
      [p.layer, SIRUTA, objectId++, p.ref, p.wkt, p.buffer ?? null],
    );
  }
});

afterAll(async () => {
  await removeTileTestData(getPool(), SIRUTA);
  await closePool();
});

describe('low-zoom generalisation of feature tiles', () => {
  test('the thresholds of the planted polygons are where this test expects them', () => {
    const px2 = (z: number) => pixelSize3857(z) ** 2;
    expect(4 * MERCATOR_AREA_FACTOR).toBeLessThan(px2(14));
    expect(36 * MERCATOR_AREA_FACTOR).toBeGreaterThan(px2(14));
    expect(36 * MERCATOR_AREA_FACTOR).toBeLessThan(px2(13));
    expect(Math.PI * 100 ** 2 * MERCATOR_AREA_FACTOR).toBeGreaterThan(px2(12));
  });

  test('z16 is exact: every polygon, the round one with all its vertices', async () => {
    const f = await features('gis_terenuri', 16);
    expect([...f.keys()].sort()).toEqual(['round', 'small', 'tiny']);
    expect(vertices(f.get('round'))).toBeGreaterThan(150); // of 257: ST_AsMVTGeom's own quantisation only
  });

  test('below z16 polygons under one pixel² are left out', async () => {
    expect([...(await features('gis_terenuri', 14)).keys()].sort()).toEqual(['round', 'small']);
    expect([...(await features('gis_terenuri', 13)).keys()].sort()).toEqual(['round']);
    expect([...(await features('gis_terenuri_status', 13)).keys()].sort()).toEqual(['round']);
  });

  test('below z16 the rest is simplified to about a pixel, keeping its extent', async () => {
    const z12 = (await features('gis_terenuri', 12)).get('round');
    expect(z12).toBeDefined();
    expect(vertices(z12)).toBeLessThan(40);
    // 200 m across at z12: the tile is ~6,680 m wide (4096 units) at this latitude, so ~120 units.
    const xs = z12!.loadGeometry()[0].map((p) => p.x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(100);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(140);
  });

  test('lines are not dropped by area', async () => {
    expect((await features('gis_features', 13)).has('line')).toBe(true);
  });
});
