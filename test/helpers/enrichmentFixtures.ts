/**
 * Loads one UAT of the land-registry simulator into a store as a layer sync would leave it:
 * the UAT row, every parcel and building with its remote attributes and geometry (through the
 * same f_esri_rings_to_geom the sync uses). The enrichment tests start from real portal data
 * without depending on the sync engine's progress; they talk to the simulator through the shared
 * portal client. Also a plain second view of the simulator's raw answers (own login, own cookie),
 * so tests derive what the enrichment should say independently of the code under test.
 */
import type pg from 'pg';
import type { LandregClient } from '../../domain/landreg/client';
import { fetchAllFeatures, uatDetail, uatWhere } from '../../domain/landreg/portal';

export async function loadUatFromSimulator(db: pg.Pool, client: LandregClient, siruta: number): Promise<{ parcels: number; buildings: number }> {
  const uat = await uatDetail(client, siruta, false);
  await db.query(
    `INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, $3, $4)
     ON CONFLICT (siruta) DO UPDATE SET name = EXCLUDED.name, county = EXCLUDED.county, workspace_pk = EXCLUDED.workspace_pk`,
    [siruta, uat.name, uat.countyName, uat.workspaceId],
  );
  const counts = { parcels: 0, buildings: 0 };
  for (const layerId of ['TERENURI_ACTIVE', 'CLADIRI_ACTIVE'] as const) {
    const features = await fetchAllFeatures(client, layerId, uatWhere(siruta));
    await db.query(
      `INSERT INTO gis_features (layer_id, siruta, object_id, cadastral_ref, area_value, geom, attributes, valid_from)
       SELECT $1, $2, (a->>'OBJECTID')::bigint, a->>'NATIONAL_CADASTRAL_REFERENCE', (a->>'AREA_VALUE')::float8,
              CASE WHEN g IS NULL OR g = 'null'::jsonb THEN NULL ELSE f_esri_rings_to_geom(g) END, a,
              to_timestamp((a->>'VALID_FROM')::float8 / 1000)
         FROM unnest($3::jsonb[], $4::jsonb[]) AS t(a, g)
       ON CONFLICT ON CONSTRAINT gis_features_layer_uat_object_key DO NOTHING`,
      [layerId, siruta, features.map((f) => JSON.stringify(f.attributes)), features.map((f) => JSON.stringify(f.geometry ?? null))],
    );
    if (layerId === 'TERENURI_ACTIVE') counts.parcels = features.length;
    else counts.buildings = features.length;
  }
  return counts;
}

/** The simulator's raw JSON answers, read with a login of its own (independent of the client under test). */
export class RawPortal {
  private cookie: string | null = null;
  constructor(
    private readonly baseUrl: string,
    private readonly username: string,
    private readonly password: string,
  ) {}

  async get<T>(path: string, query: Record<string, string | number> = {}): Promise<T> {
    if (!this.cookie) {
      const res = await fetch(`${this.baseUrl}/eterra/api/authentication`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ j_username: this.username, j_password: this.password }).toString(),
      });
      this.cookie = res.headers.getSetCookie()[0].split(';')[0];
    }
    const url = new URL(`${this.baseUrl}/eterra/api${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    const res = await fetch(url, { headers: { cookie: this.cookie } });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return (await res.json()) as T;
  }
}
