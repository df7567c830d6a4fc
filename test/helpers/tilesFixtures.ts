/**
 * Fixtures of the tile tests: the real Express app on a free port, signed-in sessions written
 * straight into app_sessions (the sign-in flow itself is tested elsewhere), and a small UAT with
 * parcels and a building near the centre of Cluj-Napoca, in EPSG:3844, on a SIRUTA range no other
 * test uses (997000-997099).
 */
import http from 'node:http';
import { listenApp } from './appServer';
import type pg from 'pg';
import { createApp } from '../../api/app';
import { createStore } from '../../domain/db/store';
import { createSession, newSessionToken, sessionIdFor, type StoredSession } from '../../api/auth/sessionStore';
import { wgs84ToStereo70 } from '../../domain/geo/epsg3844';

export const TILE_TEST_SIRUTA = 997001;
export const TILE_TEST_SIRUTA_RANGE = [997000, 997099] as const;

export async function startTestApp(): Promise<{ url: string; close(): Promise<void> }> {
  const store = createStore();
  const { server, base } = await listenApp(createApp({ store }));
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }).then(() => store.close()),
  };
}

/** One request through node:http, which leaves the body as it came (fetch decodes gzip by itself). */
export function rawRequest(
  url: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A live session for `email` in `db` (the app's database); answers the Cookie header value. */
export async function sessionCookie(db: pg.Pool, email: string, opts: { admin?: boolean } = {}): Promise<string> {
  const token = newSessionToken();
  const data: StoredSession = {
    v: 1,
    user: { id: `test-${email}`, email, name: email.split('@')[0], company: 'B' },
    groups: opts.admin ? ['admin'] : [],
    enrichmentScope: 'full',
    flags: { useCentralApi: false, basicPanel: false, isAdmin: Boolean(opts.admin) },
    tokens: { accessToken: 'test', accessTokenExpiresAt: Date.now() + 3_600_000, refreshAt: Date.now() + 3_600_000 },
  };
  await createSession(db, sessionIdFor(token), data);
  return `cgp_session=${token}`;
}

/** Slippy-map tile of a WGS84 point. */
export function tileOf(lon: number, lat: number, z: number): { x: number; y: number } {
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const rad = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n);
  return { x, y };
}

/** WGS84 centre of a tile. */
export function tileCentre(z: number, x: number, y: number): [number, number] {
  const n = 2 ** z;
  const lon = ((x + 0.5) / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y + 0.5)) / n))) * 180) / Math.PI;
  return [lon, lat];
}

/** Square ring (EPSG:3844 WKT) of `size` metres with its south-west corner at (x, y). */
function square(x: number, y: number, size: number): string {
  return `POLYGON((${x} ${y}, ${x + size} ${y}, ${x + size} ${y + size}, ${x} ${y + size}, ${x} ${y}))`;
}

export interface PlantedTileData {
  /** The z16 tile whose centre the parcels surround. */
  tile: { z: number; x: number; y: number };
  parcels: Array<{ objectId: number; cadastralRef: string; enriched: boolean }>;
  building: { objectId: number; cadastralRef: string };
}

/** Cluj-Napoca, Piața Unirii. */
const CLUJ: [number, number] = [23.5899, 46.7697];

/** Test files run in parallel: each plants and removes its own SIRUTA inside the range. */
export async function removeTileTestData(db: pg.Pool, siruta = TILE_TEST_SIRUTA): Promise<void> {
  const [lo, hi] = TILE_TEST_SIRUTA_RANGE;
  if (siruta < lo || siruta > hi) throw new Error(`siruta ${siruta} outside the tile tests' range`);
  await db.query(`DELETE FROM gis_features WHERE siruta = $1`, [siruta]);
  await db.query(`DELETE FROM gis_uats WHERE siruta = $1`, [siruta]);
}

/**
 * A UAT square of 4 km around the tile, three 20 m parcels and one building inside one z16 tile
 * (about 420 m wide at this latitude), 60 m apart around the tile's centre.
 */
export async function plantTileTestData(db: pg.Pool, siruta = TILE_TEST_SIRUTA): Promise<PlantedTileData> {
  await removeTileTestData(db, siruta);
  const z = 16;
  const { x, y } = tileOf(CLUJ[0], CLUJ[1], z);
  const [cx, cy] = wgs84ToStereo70(tileCentre(z, x, y));
  await db.query(
    `INSERT INTO gis_uats (siruta, name, county, workspace_pk, geom, area_value)
     VALUES ($1, 'Cluj-Napoca (test tiles)', 'Cluj', 997, ST_Multi(ST_GeomFromText($2, 3844)), 16000000)`,
    [siruta, square(cx - 2000, cy - 2000, 4000)],
  );
  const parcels = [
    { objectId: 1, cadastralRef: `${siruta}-101`, enriched: true, dx: -60, dy: -60 },
    { objectId: 2, cadastralRef: `${siruta}-102`, enriched: false, dx: 0, dy: 0 },
    { objectId: 3, cadastralRef: `${siruta}-103`, enriched: false, dx: 60, dy: 40 },
  ];
  for (const p of parcels) {
    await db.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom, attributes, enrichment, enriched_at)
       VALUES ('TERENURI_ACTIVE', $1, $2, $3, 400, ST_GeomFromText($4, 3844), '{"NATIONAL_CADASTRAL_REFERENCE":"x"}', $5, $6)`,
      [
        siruta,
        p.objectId,
        p.cadastralRef,
        square(cx + p.dx, cy + p.dy, 20),
        p.enriched ? JSON.stringify({ NR_CAD: p.cadastralRef, BUILD_LEGAL: 1, HAS_BUILDING: 1 }) : null,
        p.enriched ? new Date() : null,
      ],
    );
  }
  const building = { objectId: 11, cadastralRef: `${siruta}-101-C1` };
  await db.query(
    `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom)
     VALUES ('CLADIRI_ACTIVE', $1, $2, $3, 64, ST_GeomFromText($4, 3844))`,
    [siruta, building.objectId, building.cadastralRef, square(cx - 54, cy - 54, 8)],
  );
  return { tile: { z, x, y }, parcels: parcels.map(({ objectId, cadastralRef, enriched }) => ({ objectId, cadastralRef, enriched })), building };
}
