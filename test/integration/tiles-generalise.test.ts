/**
 * Low-zoom generalisation of the MVT query (domain/tiles/mvt.ts, docs/tiles.md "Performance"),
 * rendered from the stack's PostGIS: below z16 polygons smaller than one display pixel² are
 * left out and the rest simplified to about a pixel; lines are never dropped by area; polygons
 * under keepAreaPx2(z) are sampled with probability area / threshold, the same in every tile (the
 * density rule); a tile holds at most LOW_ZOOM_MAX_FEATURES features; z16 is exact. Below z16 features carry no cadastral_ref: they are told apart by their MVT feature id
 * (object_id).
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { closePool, getPool, getTilePool } from '../../domain/db/pool';
import { wgs84ToStereo70 } from '../../domain/geo/epsg3844';
import { DETAIL_MINZOOM, GRID_ZOOMS, MVT_BUFFER, MVT_EXTENT, gridExtent, keepAreaPx2, pixelSize3857, type GridZoom } from '../../domain/tiles/density';
import { getTile, LOW_ZOOM_MAX_FEATURES, renderTile } from '../../domain/tiles/mvt';
import { tilesChanged } from '../../domain/tiles/versions';
import { removeTileTestData, tileCentre, tileOf } from '../helpers/tilesFixtures';

const SIRUTA = 997003;
/** The density test's own UAT code and place (Timișoara, far from every other test's data). */
const DENSE_SIRUTA = 997004;
const DENSE_CENTRE: [number, number] = [21.2087, 45.7489];
/** The grid zoom tests' own UAT codes (one a zoom) and place (Oradea). */
const GRID_SIRUTAS: Record<GridZoom, number> = { 14: 997005, 16: 997007 };
const GRID_PLACE: [number, number] = [21.9189, 47.0722];
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

/** The planted features of a tile by their name; object ids are 1.. in the order of `planted`. */
async function features(source: string, z: number): Promise<Map<string, VectorTileFeature>> {
  const shift = 16 - z;
  const body = await renderTile(getTilePool(), { source, z, x: Z16.x >> shift, y: Z16.y >> shift });
  const layer = new VectorTile(new PbfReader(body)).layers[source];
  const out = new Map<string, VectorTileFeature>();
  for (let i = 0; i < (layer?.length ?? 0); i++) {
    const f = layer.feature(i);
    if (f.properties.siruta !== SIRUTA) continue;
    const p = planted[Number(f.id) - 1];
    if (z >= 16) expect(f.properties.cadastral_ref).toBe(p.ref);
    else expect(f.properties.cadastral_ref).toBeUndefined();
    out.set(p.ref, f);
  }
  return out;
}

const vertices = (f: VectorTileFeature | undefined) => (f ? f.loadGeometry().reduce((n, ring) => n + ring.length, 0) : 0);

beforeAll(async () => {
  for (const siruta of Object.values(GRID_SIRUTAS)) await removeTileTestData(getPool(), siruta);
  await removeTileTestData(getPool(), DENSE_SIRUTA);
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
  for (const siruta of Object.values(GRID_SIRUTAS)) await removeTileTestData(getPool(), siruta);
  await removeTileTestData(getPool(), DENSE_SIRUTA);
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
    // 'small' (~3.4 px² at z14) is under the z14 density threshold: sampled, so not asserted here.
    const z14 = await features('gis_terenuri', 14);
    expect(z14.has('tiny')).toBe(false);
    expect(z14.has('round')).toBe(true);
    expect([...(await features('gis_terenuri', 13)).keys()].sort()).toEqual(['round']);
    expect([...(await features('gis_terenuri_status', 13)).keys()].sort()).toEqual(['round']);
  });

  test('below z16 the rest is simplified to about a pixel, keeping its extent', async () => {
    const z12 = (await features('gis_terenuri', 12)).get('round');
    expect(z12).toBeDefined();
    expect(vertices(z12)).toBeLessThan(40);
    // 200 m across at z12: the tile is ~6,680 m wide (1,024 units below z16) at this latitude,
    // so ~30 units.
    const xs = z12!.loadGeometry()[0].map((p) => p.x);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(25);
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(35);
  });

  test('lines are not dropped by area', async () => {
    expect((await features('gis_features', 13)).has('line')).toBe(true);
  });
});

describe('the density rule below z16', () => {
  /**
   * Two z13 tiles in Timișoara (~3.4 km wide each), A and its eastern neighbour B; the grid of
   * small parcels is centred on the middle of their common edge, so it lies in both and a column
   * of parcels straddles the edge.
   */
  const A = tileOf(DENSE_CENTRE[0], DENSE_CENTRE[1], 13);
  const B = { x: A.x + 1, y: A.y }; // A's eastern neighbour
  const GRID = 80; // 6,400 parcels
  const STEP = 20; // m; each parcel an 18 m square: ~7 px² at z13, under the z13 threshold
  const SIDE = 18;
  const BIG_OBJECT_ID = 100_000;
  const LINE_OBJECT_ID = 100_001;
  /** Lines for the cap (10–109 m: none collapses at z13): more than LOW_ZOOM_MAX_FEATURES in tile A. */
  const LINES_FROM = 200_000;
  const LINES = LOW_ZOOM_MAX_FEATURES + 300;

  /** WGS84 middle of the edge between A and B. */
  const MIDDLE: [number, number] = [((A.x + 1) / 2 ** 13) * 360 - 180, tileCentre(13, A.x, A.y)[1]];

  beforeAll(async () => {
    const [cx, cy] = wgs84ToStereo70(MIDDLE);
    const [x0, y0] = [cx - (GRID * STEP) / 2, cy - (GRID * STEP) / 2];
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
       SELECT 'TERENURI_ACTIVE', $1, i, 'g' || i, ST_MakeEnvelope(x, y, x + ${SIDE}, y + ${SIDE}, 3844)
         FROM (SELECT i, $2::float8 + (i % $4::int) * $5::float8 AS x, $3::float8 + (i / $4::int) * $5::float8 AS y
                 FROM generate_series(0, $4::int * $4::int - 1) i) g`,
      [DENSE_SIRUTA, x0, y0, GRID, STEP],
    );
    // A big parcel and a line, 1.2 km west of the grid: inside tile A.
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom) VALUES
         ('TERENURI_ACTIVE', $1, $2, 'mare', ST_MakeEnvelope($4::float8 - 1400, $5::float8 + 1000, $4::float8 - 1200, $5::float8 + 1200, 3844)),
         ('TEST_LINES', $1, $3, 'linie', ST_SetSRID(ST_MakeLine(ST_MakePoint($4::float8 - 1400, $5::float8 + 900), ST_MakePoint($4::float8 - 1200, $5::float8 + 900)), 3844))`,
      [DENSE_SIRUTA, BIG_OBJECT_ID, LINE_OBJECT_ID, cx, cy],
    );
    // Short lines, north-west of the grid (tile A), for the cap.
    await getPool().query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
       SELECT 'TEST_LINES', $1, $2::int + i, NULL,
              ST_SetSRID(ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + 10 + (i % 100), y)), 3844)
         FROM (SELECT i, $4::float8 - 1100 + (i % 128) * 7 AS x, $5::float8 + 1000 + (i / 128) * 4 AS y
                 FROM generate_series(0, $3::int - 1) i) g`,
      [DENSE_SIRUTA, LINES_FROM, LINES, cx - 1000, cy - 300],
    );
  });

  async function ours(source: string, z: number, x: number, y: number): Promise<VectorTileFeature[]> {
    const layer = new VectorTile(new PbfReader(await renderTile(getTilePool(), { source, z, x, y }))).layers[source];
    return Array.from({ length: layer?.length ?? 0 }, (_, i) => layer.feature(i)).filter((f) => f.properties.siruta === DENSE_SIRUTA);
  }
  const gridIds = (fs: VectorTileFeature[]) => new Set(fs.map((f) => Number(f.id)).filter((id) => id < GRID * GRID));

  /** Grid parcels touching a z13 tile, and the share the rule should keep of them. */
  async function candidates(x: number, y: number): Promise<{ ids: Set<number>; expected: number }> {
    const r = await getPool().query<{ id: string; p: number }>(
      `SELECT object_id AS id, least(1, ST_Area(geom_3857) / ($4::float8 * (40075016.68557849 / 2 ^ 13 / 512) ^ 2)) AS p
         FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND object_id < $5
          AND ST_Intersects(geom_3857, ST_TileEnvelope(13, $2, $3))`,
      [DENSE_SIRUTA, x, y, keepAreaPx2(13), GRID * GRID],
    );
    return { ids: new Set(r.rows.map((row) => Number(row.id))), expected: r.rows.reduce((s, row) => s + row.p, 0) / r.rows.length };
  }

  test('small parcels are kept in proportion to their area, evenly in every tile; large ones always', async () => {
    for (const t of [A, B]) {
      const { ids, expected } = await candidates(t.x, t.y);
      expect(ids.size).toBeGreaterThan(2500);
      expect(expected).toBeGreaterThan(0.05);
      expect(expected).toBeLessThan(0.25);
      const kept = [...gridIds(await ours('gis_terenuri_status', 13, t.x, t.y))].filter((id) => ids.has(id));
      expect(kept.length / ids.size).toBeGreaterThan(expected - 0.04);
      expect(kept.length / ids.size).toBeLessThan(expected + 0.04);
    }
    const a = await ours('gis_terenuri_status', 13, A.x, A.y);
    expect(a.some((f) => f.id === BIG_OBJECT_ID)).toBe(true);
  });

  test('no seams: a parcel cut by a tile edge is kept on both sides or on neither', async () => {
    const [ca, cb] = [await candidates(A.x, A.y), await candidates(B.x, B.y)];
    const straddling = [...ca.ids].filter((id) => cb.ids.has(id));
    expect(straddling.length).toBeGreaterThan(50);
    const [ka, kb] = [gridIds(await ours('gis_terenuri_status', 13, A.x, A.y)), gridIds(await ours('gis_terenuri_status', 13, B.x, B.y))];
    const inA = straddling.filter((id) => ka.has(id));
    expect(inA.length).toBeGreaterThan(0);
    expect(inA.length).toBeLessThan(straddling.length);
    expect(straddling.filter((id) => kb.has(id))).toEqual(inA);
  });

  test('the same decision on every render', async () => {
    const ids = async () => [...gridIds(await ours('gis_terenuri_status', 13, A.x, A.y))].sort((p, q) => p - q);
    expect(await ids()).toEqual(await ids());
  });

  test('z16 is never thinned: every grid parcel of a z16 tile is in it', async () => {
    const t = tileOf(MIDDLE[0] - 0.002, MIDDLE[1], 16); // in A, ~150 m west of the edge: in the grid
    const parcels = await ours('gis_terenuri_status', 16, t.x, t.y);
    const r = await getPool().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM gis_features
        WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND ST_Intersects(geom_3857, ST_TileEnvelope(16, $2, $3))`,
      [DENSE_SIRUTA, t.x, t.y],
    );
    expect(r.rows[0].n).toBeGreaterThan(100);
    expect(parcels.length).toBeGreaterThanOrEqual(r.rows[0].n);
  });

  test('lines are never thinned by area, but a tile holds at most LOW_ZOOM_MAX_FEATURES features, the lowest priorities left out', async () => {
    const all = await ours('gis_features', 13, A.x, A.y);
    // The cap counts candidates; a parcel that only grazes the tile's buffer may then clip to nothing.
    expect(all.length).toBeLessThanOrEqual(LOW_ZOOM_MAX_FEATURES);
    expect(all.length).toBeGreaterThan(LOW_ZOOM_MAX_FEATURES - 20);
    const ids = new Set(all.map((f) => Number(f.id)));
    expect(ids.has(LINE_OBJECT_ID)).toBe(true); // 200 m: a high priority
    expect(ids.has(BIG_OBJECT_ID)).toBe(true);
    // The cap left out only short lines: every parcel the density rule kept is still there.
    for (const id of gridIds(await ours('gis_terenuri_status', 13, A.x, A.y))) expect(ids.has(id)).toBe(true);
    const lines = all.filter((f) => Number(f.id) >= LINES_FROM).length;
    expect(lines).toBeGreaterThan(LINES - 2000);
    expect(lines).toBeLessThan(LINES);
  });

  test('the lowest zoom the store keeps follows the geometry: a speck redrawn as a large parcel is in the next z13 render', async () => {
    const SPECK = 150_000;
    const [cx, cy] = wgs84ToStereo70(MIDDLE);
    const db = getPool();
    // 1.6 km west of the grid, inside tile A: a 2 m square, under one display pixel² at z13.
    await db.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
       VALUES ('TERENURI_ACTIVE', $1, $2, 'punct', ST_MakeEnvelope($3::float8 - 1600, $4::float8, $3::float8 - 1598, $4::float8 + 2, 3844))`,
      [DENSE_SIRUTA, SPECK, cx, cy],
    );
    try {
      const inA = async () => (await ours('gis_terenuri_status', 13, A.x, A.y)).some((f) => f.id === SPECK);
      expect(await inA()).toBe(false);
      await db.query(
        `UPDATE gis_features SET geom = ST_MakeEnvelope($3::float8 - 1900, $4::float8, $3::float8 - 1600, $4::float8 + 300, 3844)
          WHERE siruta = $1 AND object_id = $2`,
        [DENSE_SIRUTA, SPECK, cx, cy],
      );
      expect(await inA()).toBe(true);
      // Every row of the test's UAT keeps exactly what the rule gives its geometry now.
      const stale = await db.query(
        `SELECT object_id FROM gis_features WHERE siruta = $1 AND tile_minzoom IS DISTINCT FROM f_tile_minzoom(geom_3857, object_id)`,
        [DENSE_SIRUTA],
      );
      expect(stale.rows).toEqual([]);
    } finally {
      await db.query(`DELETE FROM gis_features WHERE siruta = $1 AND object_id = $2`, [DENSE_SIRUTA, SPECK]);
    }
  });
});

describe.each(GRID_ZOOMS)('z%i tiles read the tile geometry the store keeps ready', (GRID_ZOOM) => {
  const GRID_SIRUTA = GRID_SIRUTAS[GRID_ZOOM];
  /** Sizes and offsets below are those of z14 (a tile ~1.7 km wide), scaled to the zoom's tile. */
  const s = 2 ** (14 - GRID_ZOOM);
  const generalised = GRID_ZOOM < DETAIL_MINZOOM;
  const extent = gridExtent(GRID_ZOOM);
  /** A tile of Oradea and its eastern neighbour. */
  const T = tileOf(GRID_PLACE[0], GRID_PLACE[1], GRID_ZOOM);
  const E = { x: T.x + 1, y: T.y };
  const EAST_EDGE = ((T.x + 1) / 2 ** GRID_ZOOM) * 360 - 180;
  const [tx, ty] = wgs84ToStereo70(tileCentre(GRID_ZOOM, T.x, T.y));
  const [ex, ey] = wgs84ToStereo70([EAST_EDGE, tileCentre(GRID_ZOOM, T.x, T.y)[1]]);
  /** object_id → what it is; 1–3 parcels, 4 a building. */
  const REFS = ['inside', 'round', 'edge', 'building'];
  const STATUS = { inside: { has_enrichment: 1, has_building: 1, build_legal: 0 }, round: { has_enrichment: 0 }, edge: { has_enrichment: 1, has_building: 0, build_legal: 1 } };
  /** A z14 feature's attributes but its UAT: the status flags alone; a z16 feature's status flags (it carries every attribute). */
  const flags = (f: VectorTileFeature) =>
    Object.fromEntries(Object.entries(f.properties).filter(([k]) => (generalised ? k !== 'siruta' : ['has_enrichment', 'has_building', 'build_legal'].includes(k))));

  beforeAll(async () => {
    const rows: Array<[number, string, string, string, object | null]> = [
      [1, 'TERENURI_ACTIVE', square(tx - 200 * s, ty - 100 * s, 30 * s), 'x', { HAS_BUILDING: 1, BUILD_LEGAL: 0 }],
      [2, 'TERENURI_ACTIVE', `POINT(${tx + 150 * s} ${ty + 150 * s})`, 'buffer', null], // 257 vertices, simplified at z14
      [3, 'TERENURI_ACTIVE', square(ex - 20 * s, ey - 20 * s, 40 * s), 'x', { HAS_BUILDING: 0, BUILD_LEGAL: 1 }], // across the tile edge
      [4, 'CLADIRI_ACTIVE', square(tx - 195 * s, ty - 95 * s, 12 * s), 'x', null], // on parcel 1
    ];
    for (const [objectId, layer, wkt, kind, enrichment] of rows) {
      await getPool().query(
        `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom, enrichment)
         VALUES ($1, $2, $3, $4, CASE WHEN $6 = 'buffer' THEN ST_Buffer(ST_GeomFromText($5, 3844), $8::float8, 64) ELSE ST_GeomFromText($5, 3844) END, $7)`,
        [layer, GRID_SIRUTA, objectId, objectId === 4 ? 'p1-C1' : `p${objectId}`, wkt, kind, enrichment && JSON.stringify(enrichment), 60 * s],
      );
    }
  });

  /** The planted features of a decoded tile, by what they are. */
  function planted(body: Buffer, source: string): Map<string, VectorTileFeature> {
    const layer = new VectorTile(new PbfReader(body)).layers[source];
    const out = new Map<string, VectorTileFeature>();
    for (let i = 0; i < (layer?.length ?? 0); i++) {
      const f = layer.feature(i);
      if (f.properties.siruta === GRID_SIRUTA) out.set(REFS[Number(f.id) - 1], f);
    }
    return out;
  }

  /**
   * What ST_AsMVTGeom makes of each planted feature in tile (x, y) (at z14 after the pixel
   * simplification, the rendering of every other low zoom; at z16 exactly, as every deeper zoom):
   * the reference, computed without the stored column.
   */
  async function reference(x: number, y: number): Promise<Map<string, number[][][]>> {
    const geom = generalised ? `ST_Simplify(geom_3857, ${pixelSize3857(GRID_ZOOM)}, true)` : 'geom_3857';
    const r = await getPool().query<{ object_id: string; g: string | null }>(
      `SELECT object_id, ST_AsGeoJSON(ST_AsMVTGeom(${geom}, ST_TileEnvelope($2, $3, $4), $5::int, $6::int, true)) AS g
         FROM gis_features WHERE siruta = $1`,
      [GRID_SIRUTA, GRID_ZOOM, x, y, extent, (extent * MVT_BUFFER) / MVT_EXTENT],
    );
    const out = new Map<string, number[][][]>();
    for (const row of r.rows) {
      if (!row.g) continue;
      const g = JSON.parse(row.g) as { type: string; coordinates: number[][][] | number[][][][] };
      out.set(REFS[Number(row.object_id) - 1], g.type === 'MultiPolygon' ? (g.coordinates as number[][][][]).flat() : (g.coordinates as number[][][]));
    }
    return out;
  }

  const rings = (f: VectorTileFeature | undefined) => f?.loadGeometry().map((ring) => ring.map((p) => [p.x, p.y]));

  test('every planted feature has the geometry ST_AsMVTGeom gives it in that tile, and its attributes', async () => {
    for (const t of [T, E]) {
      const ref = await reference(t.x, t.y);
      const parcels = planted(await renderTile(getTilePool(), { source: 'gis_terenuri_status', z: GRID_ZOOM, ...t }), 'gis_terenuri_status');
      const expected = t === T ? ['edge', 'inside', 'round'] : ['edge'];
      expect([...parcels.keys()].sort()).toEqual(expected);
      for (const name of expected) {
        expect({ name, rings: rings(parcels.get(name)) }).toEqual({ name, rings: ref.get(name) });
        expect({ name, flags: flags(parcels.get(name)!) }).toEqual({ name, flags: STATUS[name as keyof typeof STATUS] });
      }
      if (t === T && generalised) expect(vertices(parcels.get('round'))).toBeLessThan(60); // of 257: simplified to a pixel
      // A plain feature view and the buildings' status view read the same column.
      const plain = planted(await renderTile(getTilePool(), { source: 'gis_features', z: GRID_ZOOM, ...t }), 'gis_features');
      for (const name of [...expected, ...(t === T ? ['building'] : [])]) expect({ name, rings: rings(plain.get(name)) }).toEqual({ name, rings: ref.get(name) });
    }
    const buildings = planted(await renderTile(getTilePool(), { source: 'gis_cladiri_status', z: GRID_ZOOM, ...T }), 'gis_cladiri_status');
    expect(rings(buildings.get('building'))).toEqual((await reference(T.x, T.y)).get('building'));
    expect(flags(buildings.get('building')!)).toEqual({ has_enrichment: 0, has_building: 1, build_legal: 0 });
  });

  test('after a sync moves a parcel and an enrichment fills another, the tile shows both', async () => {
    const addr = { source: 'gis_terenuri_status', z: GRID_ZOOM, ...T };
    const store = { pool: getPool(), tilePool: getTilePool() };
    const before = await getTile(store, addr);
    const old = (await reference(T.x, T.y)).get('inside');
    await getPool().query(`UPDATE gis_features SET geom = ST_Translate(geom, $2::float8, 0) WHERE siruta = $1 AND object_id = 1`, [GRID_SIRUTA, 300 * s]);
    await tilesChanged(getPool(), { kind: 'layer', layerId: 'TERENURI_ACTIVE' });
    const moved = await getTile(store, addr);
    expect(moved.etag).not.toBe(before.etag);
    expect(moved.cached).toBe(false);
    // What the tile cache keeps is the tile's bytes alone, not a slice pinning a shared slab.
    expect(moved.gzipped.buffer.byteLength).toBe(moved.gzipped.length);
    const now = await reference(T.x, T.y);
    expect(now.get('inside')).not.toEqual(old);
    expect(rings(planted(gunzipSync(moved.gzipped), 'gis_terenuri_status').get('inside'))).toEqual(now.get('inside'));

    await getPool().query(`UPDATE gis_features SET enrichment = '{"HAS_BUILDING": 0}' WHERE siruta = $1 AND object_id = 2`, [GRID_SIRUTA]);
    await tilesChanged(getPool(), { kind: 'enrichment' });
    const enriched = await getTile(store, addr);
    expect(enriched.etag).not.toBe(moved.etag);
    expect(flags(planted(gunzipSync(enriched.gzipped), 'gis_terenuri_status').get('round')!)).toEqual({ has_enrichment: 1, has_building: 0 });
  });
});

describe('buildings thin harder at z14 than parcels', () => {
  /** Its own UAT code and place (Arad); one z14 tile, the planted grid well inside it. */
  const SIRUTA_Z14 = 997006;
  const T = tileOf(21.3129, 46.1866, 14);
  const GRID = 40; // 1,600 squares, each planted once as a parcel and once as a building
  const STEP = 15;
  const SIDE = 10; // 100 m² on the ground, ~210 m² in EPSG:3857: between 4 and 16 z14 px²

  beforeAll(async () => {
    await removeTileTestData(getPool(), SIRUTA_Z14);
    const [cx, cy] = wgs84ToStereo70(tileCentre(14, T.x, T.y));
    for (const layer of ['TERENURI_ACTIVE', 'CLADIRI_ACTIVE']) {
      await getPool().query(
        `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, geom)
         SELECT $1, $2, i, 'z' || i, ST_MakeEnvelope(x, y, x + ${SIDE}, y + ${SIDE}, 3844)
           FROM (SELECT i, $3::float8 + (i % $5::int) * $6::float8 AS x, $4::float8 + (i / $5::int) * $6::float8 AS y
                   FROM generate_series(0, $5::int * $5::int - 1) i) g`,
        [layer, SIRUTA_Z14, cx - (GRID * STEP) / 2, cy - (GRID * STEP) / 2, GRID, STEP],
      );
    }
  });
  afterAll(() => removeTileTestData(getPool(), SIRUTA_Z14));

  async function kept(source: string): Promise<number> {
    const layer = new VectorTile(new PbfReader(await renderTile(getTilePool(), { source, z: 14, ...T }))).layers[source];
    return Array.from({ length: layer?.length ?? 0 }, (_, i) => layer.feature(i)).filter((f) => f.properties.siruta === SIRUTA_Z14).length;
  }

  test('every parcel of the grid stays; buildings of the same size are sampled in proportion to their area under 16 px²', async () => {
    const r = await getPool().query<{ area: number }>(`SELECT avg(ST_Area(geom_3857)) AS area FROM gis_features WHERE siruta = $1 AND layer_id = 'CLADIRI_ACTIVE'`, [SIRUTA_Z14]);
    const px2 = pixelSize3857(14) ** 2;
    expect(r.rows[0].area).toBeGreaterThan(keepAreaPx2(14) * px2);
    expect(r.rows[0].area).toBeLessThan(16 * px2);
    const expected = r.rows[0].area / (16 * px2);
    expect(await kept('gis_terenuri_status')).toBe(GRID * GRID);
    for (const source of ['gis_cladiri_status', 'gis_cladiri']) {
      const share = (await kept(source)) / (GRID * GRID);
      expect(share).toBeGreaterThan(expected - 0.05);
      expect(share).toBeLessThan(expected + 0.05);
    }
    // z15 keeps every building again (1 px²).
    const z15 = await Promise.all(
      [0, 1].flatMap((dx) => [0, 1].map(async (dy) => {
        const layer = new VectorTile(new PbfReader(await renderTile(getTilePool(), { source: 'gis_cladiri_status', z: 15, x: 2 * T.x + dx, y: 2 * T.y + dy }))).layers.gis_cladiri_status;
        return new Set(Array.from({ length: layer?.length ?? 0 }, (_, i) => layer.feature(i)).filter((f) => f.properties.siruta === SIRUTA_Z14).map((f) => Number(f.id)));
      })),
    );
    expect(new Set(z15.flatMap((s) => [...s])).size).toBe(GRID * GRID);
  });
});
