/**
 * The UAT catalogue (spec 4.4: /api/landreg/uats, /counties; spec 2.2 GisUat). Reads come from
 * the store only (no portal login needed); refreshes compare per-county counts with the portal
 * and fetch only what differs. Geometry lands in gis_uats.geometry (ESRI rings, EPSG:3844) and
 * the store's trigger derives geom and the geom_z0/z5/z8 zoom copies.
 */
import type pg from 'pg';
import type { Db } from '../db/pool';
import { LAYER_COUNTS_SQL } from '../store/holdings';
import type { PrismaClient } from '../db/prisma';
import { mapBounded } from '../concurrency';
import { tilesChanged } from '../tiles/service';
import type { LandregClient } from './client';
import { fetchAllFeatures, listWorkspaces, listWorkspaceUats, uatDetail, type PortalUat } from './portal';

/** Spec 4.4 PATCH: geometry is skipped when more than 50% of UATs already have it. */
export const GEOMETRY_SKIP_RATIO = 0.5;

/** How long one PATCH spends fetching UAT boundaries one by one (a repeat PATCH continues). */
export const GEOMETRY_FETCH_BUDGET_MS = 20_000;

export interface UatItem {
  siruta: number;
  name: string;
  county: string | null;
  workspacePk: number | null;
  areaValue: number | null;
  hasGeometry: boolean;
  lastUpdatedDtm: string | null;
  featureCount?: number;
}

export async function listUats(db: Db): Promise<UatItem[]> {
  const r = await db.query<{ siruta: number; name: string; county: string | null; workspace_pk: number | null; area_value: number | null; has_geometry: boolean; last_updated_dtm: string | null }>(
    `SELECT siruta, name, county, workspace_pk, area_value, geom IS NOT NULL AS has_geometry, last_updated_dtm
       FROM gis_uats ORDER BY county, name`,
  );
  return r.rows.map((x) => ({
    siruta: x.siruta,
    name: x.name,
    county: x.county,
    workspacePk: x.workspace_pk,
    areaValue: x.area_value,
    hasGeometry: x.has_geometry,
    lastUpdatedDtm: x.last_updated_dtm,
  }));
}

/**
 * Per-UAT feature counts, from gis_layer_counts (migration 035, kept by triggers): exact and
 * current at the cost of one small read, where the spec's 5-minute cache of a full count of the
 * store was both stale and, at country scale, a scan of millions of rows every five minutes.
 */
export async function featureCounts(db: Db): Promise<Map<number, number>> {
  const r = await db.query<{ siruta: number; n: number }>(`SELECT siruta, sum(total)::int AS n FROM ${LAYER_COUNTS_SQL} c GROUP BY siruta`);
  return new Map(r.rows.map((x) => [x.siruta, x.n]));
}

/**
 * The counties of the store's UATs in Romanian alphabetical order (the pattern for plain CRUD
 * reads: the Prisma client). Sorted here, not by the database, whose C collation puts "Sălaj"
 * after "Suceava" and "Vâlcea" after "Vrancea".
 */
export async function listCounties(prisma: PrismaClient): Promise<string[]> {
  const rows = await prisma.gisUat.findMany({
    where: { county: { not: null } },
    distinct: ['county'],
    select: { county: true },
  });
  return rows.map((x) => x.county!).sort((a, b) => a.localeCompare(b, 'ro'));
}

/** A UAT of the catalogue with its parcel count in the local store (what a page of `?siruta=` shows). */
export interface UatOption {
  siruta: number;
  name: string;
  county: string | null;
  parcels: number;
}

/** Every sync page's load asks it: the parcels from the kept counts (gis_layer_counts), not counted anew. */
export async function uatOption(db: pg.Pool, siruta: number): Promise<UatOption | null> {
  const r = await db.query<UatOption>(
    `SELECT u.siruta, u.name, u.county,
            coalesce((SELECT sum(c.total)::int FROM gis_layer_counts c WHERE c.siruta = u.siruta AND c.layer_id = 'TERENURI_ACTIVE'), 0) AS parcels
       FROM gis_uats u
      WHERE u.siruta = $1`,
    [siruta],
  );
  return r.rows[0] ?? null;
}

/** A county of the store by name, diacritics and case folded (`f_norm`); its workspace, the job scope. */
export async function findCounty(db: pg.Pool, name: string): Promise<{ county: string; workspacePk: number | null } | undefined> {
  const r = await db.query<{ county: string; workspace_pk: number | null }>(
    `SELECT county, min(workspace_pk) AS workspace_pk FROM gis_uats WHERE f_norm(county) = f_norm($1) GROUP BY county LIMIT 1`,
    [name],
  );
  return r.rows[0] && { county: r.rows[0].county, workspacePk: r.rows[0].workspace_pk };
}

async function upsertUats(db: Db, uats: readonly PortalUat[]): Promise<number> {
  if (uats.length === 0) return 0;
  const r = await db.query(
    `INSERT INTO gis_uats (siruta, name, county, workspace_pk)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::int[])
     ON CONFLICT (siruta) DO UPDATE SET name = EXCLUDED.name, county = EXCLUDED.county, workspace_pk = EXCLUDED.workspace_pk
       WHERE (gis_uats.name, gis_uats.county, gis_uats.workspace_pk) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.county, EXCLUDED.workspace_pk)`,
    [uats.map((u) => u.siruta), uats.map((u) => u.name), uats.map((u) => u.countyName), uats.map((u) => u.workspaceId)],
  );
  return r.rowCount ?? 0;
}

export interface CatalogueRefreshResult {
  counties: number;
  /** Counties whose UAT count differed from the store's (or all, for an empty store). */
  fetchedCounties: number;
  /** UAT rows inserted or changed. */
  upserted: number;
  totalUats: number;
  unchanged: boolean;
}

/**
 * Spec 4.4 `POST /uats`: compares each county's UAT count with the store and fetches the UAT
 * list only of the counties that differ (all of them when the store is empty). Safe to repeat.
 */
export async function refreshUatCatalogue(client: LandregClient, db: Db, opts: { force?: boolean } = {}): Promise<CatalogueRefreshResult> {
  const workspaces = await listWorkspaces(client);
  const stored = await db.query<{ workspace_pk: number; n: number }>(
    `SELECT workspace_pk, count(*)::int AS n FROM gis_uats WHERE workspace_pk IS NOT NULL GROUP BY workspace_pk`,
  );
  const storedCount = new Map(stored.rows.map((x) => [x.workspace_pk, x.n]));
  const differing = workspaces.filter((w) => opts.force || storedCount.get(w.workspaceId) !== w.uatCount);
  let upserted = 0;
  for (const w of differing) upserted += await upsertUats(db, await listWorkspaceUats(client, w.workspaceId));
  if (upserted > 0) await tilesChanged(db, { kind: 'uats' });
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_uats`);
  return { counties: workspaces.length, fetchedCounties: differing.length, upserted, totalUats: total.rows[0].n, unchanged: differing.length === 0 };
}

export interface CataloguePatchResult {
  countiesChecked: number;
  uatsUpdated: number;
  geometry: { skipped: boolean; reason?: string; withGeometryBefore: number; updated: number; pending: number };
  /** Debug samples (spec 4.4 PATCH): a few UATs as stored after the patch. */
  samples: Array<{ siruta: number; name: string; county: string | null; workspacePk: number | null; hasGeometry: boolean }>;
}

async function storeGeometry(db: Db, rows: Array<{ siruta: number; rings: unknown; area?: number | null }>): Promise<number> {
  if (rows.length === 0) return 0;
  const r = await db.query(
    `UPDATE gis_uats u SET geometry = jsonb_build_object('rings', v.g), area_value = COALESCE(v.a, u.area_value)
       FROM unnest($1::int[], $2::jsonb[], $3::float8[]) AS v(s, g, a) WHERE u.siruta = v.s`,
    [rows.map((x) => x.siruta), rows.map((x) => JSON.stringify(x.rings)), rows.map((x) => x.area ?? null)],
  );
  return r.rowCount ?? 0;
}

/**
 * Spec 4.4 `PATCH /uats`: refreshes county names and workspacePk of every UAT, and UAT
 * geometry unless more than half of the UATs already have it. Boundaries come from the
 * LIMITE_UAT layer per county (one paged query each), then one by one from the nomenclature for
 * UATs the layer lacks, within a time budget; a repeat PATCH continues.
 */
export async function patchUatCatalogue(client: LandregClient, db: Db, now: () => number = Date.now): Promise<CataloguePatchResult> {
  const workspaces = await listWorkspaces(client);
  let uatsUpdated = 0;
  for (const w of workspaces) uatsUpdated += await upsertUats(db, await listWorkspaceUats(client, w.workspaceId));

  const g = await db.query<{ total: number; with_geom: number }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE geometry IS NOT NULL OR geom IS NOT NULL)::int AS with_geom FROM gis_uats`,
  );
  const { total, with_geom: withGeometryBefore } = g.rows[0];
  let geometry: CataloguePatchResult['geometry'];
  if (total > 0 && withGeometryBefore > GEOMETRY_SKIP_RATIO * total) {
    geometry = { skipped: true, reason: 'Peste 50% dintre UAT-uri au deja geometrie.', withGeometryBefore, updated: 0, pending: total - withGeometryBefore };
  } else {
    let updated = 0;
    for (const w of workspaces) {
      const features = await fetchAllFeatures(client, 'LIMITE_UAT', `WORKSPACE_ID = ${w.workspaceId}`, 'OBJECTID,ADMIN_UNIT_ID,AREA_VALUE');
      updated += await storeGeometry(
        db,
        features
          .filter((f) => f.geometry && 'rings' in f.geometry && typeof f.attributes.ADMIN_UNIT_ID === 'number')
          .map((f) => ({ siruta: f.attributes.ADMIN_UNIT_ID as number, rings: (f.geometry as { rings: unknown }).rings, area: f.attributes.AREA_VALUE as number | null })),
      );
    }
    const missing = await db.query<{ siruta: number }>(`SELECT siruta FROM gis_uats WHERE geometry IS NULL AND geom IS NULL ORDER BY siruta`);
    const deadline = now() + GEOMETRY_FETCH_BUDGET_MS;
    let pending = missing.rows.length;
    // A few in flight at once; the client's rate limiter keeps the portal's pace.
    await mapBounded(missing.rows, 4, async ({ siruta: s }) => {
      if (now() >= deadline) return;
      const d = await uatDetail(client, s, true);
      if (d.geometry?.rings) {
        updated += await storeGeometry(db, [{ siruta: s, rings: d.geometry.rings, area: d.areaValue ?? null }]);
        pending--;
      }
    });
    geometry = { skipped: false, withGeometryBefore, updated, pending };
  }
  if (uatsUpdated > 0 || geometry.updated > 0) await tilesChanged(db, { kind: 'uats' });
  const samples = await db.query<{ siruta: number; name: string; county: string | null; workspace_pk: number | null; has_geometry: boolean }>(
    `SELECT siruta, name, county, workspace_pk, geom IS NOT NULL AS has_geometry FROM gis_uats ORDER BY random() LIMIT 5`,
  );
  return {
    countiesChecked: workspaces.length,
    uatsUpdated,
    geometry,
    samples: samples.rows.map((x) => ({ siruta: x.siruta, name: x.name, county: x.county, workspacePk: x.workspace_pk, hasGeometry: x.has_geometry })),
  };
}

/** True when the store has no county data yet (spec 3.1: first connection starts a county refresh). */
export async function countyDataMissing(prisma: PrismaClient): Promise<boolean> {
  const one = await prisma.gisUat.findFirst({ where: { county: { not: null }, workspacePk: { not: null } }, select: { siruta: true } });
  return one === null;
}
