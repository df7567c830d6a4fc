/**
 * Planted geoportal data for tests: two neighbouring UATs (2 km squares in EPSG:3844 around a
 * real WGS84 point), a grid of parcels in the first, one enriched parcel with owners spelled with
 * the cedilla ş, a building, an intravilan polygon, a parcel registered in the first UAT but lying
 * in the second (edge) and one registered in the second but lying in the first (foreign), and a
 * cadastral number used in both UATs. Each test owns a siruta range of 100 codes.
 */
import type pg from 'pg';
import type { Page } from 'playwright-core';
import { wgs84ToStereo70 } from '../../domain/geo/epsg3844';
import { tilesChanged } from '../../domain/tiles/versions';

export interface GeoportalFixture {
  uatA: { siruta: number; name: string };
  uatB: { siruta: number; name: string };
  /** Centre of UAT A, WGS84. */
  centre: [number, number];
  /** objectId: with siruta, the key the parcel tiles carry at every zoom (the MVT feature id). */
  parcels: { id: string; cadastralRef: string; siruta: number; objectId: number }[];
  enriched: { id: string; cadastralRef: string; objectId: number };
  edge: { id: string; cadastralRef: string };
  foreign: { id: string; cadastralRef: string };
  shared: { refInBoth: string; idA: string; idB: string };
  building: { id: string };
  /** Stereo 70 centre of UAT A. */
  xy: [number, number];
}

const UAT_HALF = 1000;
const PARCEL = 40;

const square = (x: number, y: number, half: number) =>
  `POLYGON((${x - half} ${y - half},${x + half} ${y - half},${x + half} ${y + half},${x - half} ${y + half},${x - half} ${y - half}))`;
const rect = (x1: number, y1: number, x2: number, y2: number) => `POLYGON((${x1} ${y1},${x2} ${y1},${x2} ${y2},${x1} ${y2},${x1} ${y1}))`;

export async function removeGeoportalFixtures(db: pg.Pool, sirutaBase: number): Promise<void> {
  await db.query(`DELETE FROM gis_features WHERE siruta BETWEEN $1 AND $1 + 99`, [sirutaBase]);
  await db.query(`DELETE FROM gis_uats WHERE siruta BETWEEN $1 AND $1 + 99`, [sirutaBase]);
  await db.query(`DELETE FROM cf_extracts WHERE siruta BETWEEN $1 AND $1 + 99`, [sirutaBase]);
  await fixturesChangedTiles(db);
}

/** Planted or removed rows change what tiles show, as a sync would: the one bump of the product. */
async function fixturesChangedTiles(db: pg.Pool): Promise<void> {
  for (const change of [{ kind: 'layer', layerId: 'TERENURI_ACTIVE' }, { kind: 'layer', layerId: 'CLADIRI_ACTIVE' }, { kind: 'uats' }, { kind: 'enrichment' }] as const) {
    await tilesChanged(db, change);
  }
}

export async function plantGeoportalFixtures(
  db: pg.Pool,
  opts: { sirutaBase: number; centre: [number, number]; nameA: string; nameB: string; county?: string },
): Promise<GeoportalFixture> {
  await removeGeoportalFixtures(db, opts.sirutaBase);
  const [cx, cy] = wgs84ToStereo70(opts.centre).map((v) => Math.round(v)) as [number, number];
  const a = { siruta: opts.sirutaBase + 1, name: opts.nameA };
  const b = { siruta: opts.sirutaBase + 2, name: opts.nameB };
  const county = opts.county ?? 'Cluj';
  // B is A's eastern neighbour.
  for (const [uat, x] of [
    [a, cx],
    [b, cx + 2 * UAT_HALF],
  ] as const) {
    await db.query(
      `INSERT INTO gis_uats (siruta, name, county, workspace_pk, geom, area_value)
       VALUES ($1, $2, $3, 13, ST_Multi(ST_GeomFromText($4, 3844)), $5)`,
      [uat.siruta, uat.name, county, square(x, cy, UAT_HALF), (2 * UAT_HALF) ** 2],
    );
  }

  let objectId = 1;
  const insert = async (
    layer: string,
    siruta: number,
    ref: string,
    wkt: string,
    enrichment: Record<string, unknown> | null = null,
  ): Promise<string> => {
    const r = await db.query<{ id: string }>(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom, attributes, enrichment, enriched_at)
       VALUES ($1, $2, $3, $4, ST_Area(ST_GeomFromText($5, 3844)), ST_GeomFromText($5, 3844), $6, $7, $8)
       RETURNING id`,
      [
        layer,
        siruta,
        objectId,
        ref,
        wkt,
        JSON.stringify({ OBJECTID: objectId, NATIONAL_CADASTRAL_REFERENCE: ref }),
        enrichment ? JSON.stringify(enrichment) : null,
        enrichment ? new Date('2026-01-15T10:00:00Z') : null,
      ],
    );
    objectId++;
    return r.rows[0].id;
  };

  const refBase = String(opts.sirutaBase).slice(-3);
  const parcels: GeoportalFixture['parcels'] = [];
  // A 4 x 3 grid of parcels with a 5 m gap, south-west of A's centre.
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 4; col++) {
      const x = cx - 200 + col * (PARCEL + 5);
      const y = cy - 100 + row * (PARCEL + 5);
      const ref = `${refBase}${row}${col}1`;
      const oid = objectId;
      parcels.push({ id: await insert('TERENURI_ACTIVE', a.siruta, ref, rect(x, y, x + PARCEL, y + PARCEL)), cadastralRef: ref, siruta: a.siruta, objectId: oid });
    }
  }
  const enrichedRef = `${refBase}7001`;
  const enrichedObjectId = objectId;
  const enrichedId = await insert('TERENURI_ACTIVE', a.siruta, enrichedRef, rect(cx, cy, cx + 60, cy + 50), {
    NR_CAD: enrichedRef,
    NR_CF: `${enrichedRef}-C1`,
    NR_CF_VECHI: 'CFV-PROBA-44178',
    SIRUTA: a.siruta,
    UAT: a.name,
    JUDET: county,
    SUPRAFATA: 3000,
    SUPRAFATA_MASURATA: 3000,
    INTRAVILAN: 'DA',
    CATEGORIE: 'CC:2700; A:300',
    ADRESA: `Str. Florilor nr. 7, ${a.name}`,
    PROPRIETARI: 'ŞTEFĂNESCU ION (1/2); POPESCU MARIA (1/2)',
    PROPRIETARI_VECHI: 'IONESCU GHEORGHE (1/1)',
    HAS_BUILDING: 1,
    BUILD_LEGAL: 1,
  });
  parcels.push({ id: enrichedId, cadastralRef: enrichedRef, siruta: a.siruta, objectId: enrichedObjectId });
  const building = await insert('CLADIRI_ACTIVE', a.siruta, `${enrichedRef}-C1`, rect(cx + 10, cy + 10, cx + 30, cy + 25));
  await insert('LIMITE_INTRAV_DYNAMIC', a.siruta, `intravilan-${a.siruta}`, square(cx, cy, 400));

  // Registered in A, drawn 300 m inside B.
  const edgeRef = `${refBase}8001`;
  const x0 = cx + UAT_HALF + 300;
  const edge = await insert('TERENURI_ACTIVE', a.siruta, edgeRef, rect(x0, cy, x0 + PARCEL, cy + PARCEL));
  // Registered in B, drawn 300 m inside A.
  const foreignRef = `${refBase}9001`;
  const x1 = cx - 300;
  const foreign = await insert('TERENURI_ACTIVE', b.siruta, foreignRef, rect(x1, cy + 200, x1 + PARCEL, cy + 200 + PARCEL));
  // The same cadastral number in both UATs (spec 2.1), each inside its own UAT.
  const refInBoth = `${refBase}5551`;
  const idA = await insert('TERENURI_ACTIVE', a.siruta, refInBoth, rect(cx + 200, cy - 300, cx + 240, cy - 260));
  const idB = await insert('TERENURI_ACTIVE', b.siruta, refInBoth, rect(cx + 2 * UAT_HALF, cy, cx + 2 * UAT_HALF + 40, cy + 40));
  await fixturesChangedTiles(db);

  return {
    uatA: a,
    uatB: b,
    centre: opts.centre,
    xy: [cx, cy],
    parcels,
    enriched: { id: enrichedId, cadastralRef: enrichedRef, objectId: enrichedObjectId },
    edge: { id: edge, cadastralRef: edgeRef },
    foreign: { id: foreign, cadastralRef: foreignRef },
    shared: { refInBoth, idA, idB },
    building: { id: building },
  };
}

/** Screen position of a rendered feature of `layer` (the mean of its first ring), or null when none is drawn. */
async function renderedPoint(page: Page, layer: string, want: { id: string; objectId?: number; siruta?: number }): Promise<{ x: number; y: number } | null> {
  return page.evaluate(
    ({ layer, want }) => {
      const map = (window as any).geoportalMap;
      const f = map
        .queryRenderedFeatures({ layers: [layer] })
        .find((x: any) => x.properties.id === want.id || (want.objectId !== undefined && x.id === want.objectId && x.properties.siruta === want.siruta));
      if (!f) return null;
      const ring: [number, number][] = f.geometry.type === 'Polygon' ? f.geometry.coordinates[0] : f.geometry.coordinates[0][0];
      const lon = ring.reduce((s, c) => s + c[0], 0) / ring.length;
      const lat = ring.reduce((s, c) => s + c[1], 0) / ring.length;
      const pt = map.project([lon, lat]);
      const box = map.getCanvas().getBoundingClientRect();
      return { x: box.left + pt.x, y: box.top + pt.y };
    },
    { layer, want },
  );
}

/**
 * Screen position of a rendered parcel. Found by uuid from zoom 16, by (siruta, feature id =
 * object id) below it, where the tiles carry no uuid.
 */
export async function screenPointOf(page: Page, parcel: GeoportalFixture['parcels'][number]): Promise<{ x: number; y: number }> {
  const p = await renderedPoint(page, 'parcele-fill', parcel);
  if (!p) throw new Error(`parcel ${parcel.cadastralRef} is not rendered`);
  return p;
}

/** Screen position of a rendered building (by uuid: buildings are drawn from zoom 16). */
export async function buildingPointOf(page: Page, id: string): Promise<{ x: number; y: number }> {
  const p = await renderedPoint(page, 'cladiri-fill', { id });
  if (!p) throw new Error(`building ${id} is not rendered`);
  return p;
}
