/**
 * What other areas read (and the one run they record) of the landreg store's tables: the UAT
 * catalogue (gis_uats), the layer catalogue (gis_layers), the sync runs (gis_sync_runs) and the
 * features (gis_features). The tables are this area's (domain/db/owners.ts); the CF order, the
 * central search, the watchlist, the digest, the scheduler, the export freshness rules and the AI
 * context call these functions instead of naming them.
 */
import type { Db } from '../db/pool';
import { Prisma, type PrismaClient } from '../db/prisma';
import { holdsLayerSql, LAYER_COUNTS_SQL } from '../store/holdings';

export interface UatEntry {
  siruta: number;
  name: string;
  county: string | null;
  workspacePk: number | null;
}

/** The catalogue's entries of these UATs, by SIRUTA (an unknown SIRUTA is absent). */
export async function uatsBySiruta(db: Db, sirutas: readonly number[]): Promise<Map<number, UatEntry>> {
  if (sirutas.length === 0) return new Map();
  const r = await db.query<{ siruta: number; name: string; county: string | null; workspace_pk: number | null }>(
    `SELECT siruta, name, county, workspace_pk FROM gis_uats WHERE siruta = ANY($1::int[])`,
    [sirutas],
  );
  return new Map(r.rows.map((x) => [x.siruta, { siruta: x.siruta, name: x.name, county: x.county, workspacePk: x.workspace_pk }]));
}

/** The catalogue's spelling of a county, compared without case and diacritics ("covasna" → "Covasna"); null when unknown. */
export async function countySpelling(db: Db, county: string): Promise<string | null> {
  const r = await db.query<{ county: string }>(`SELECT county FROM gis_uats WHERE f_norm(county) = f_norm($1) LIMIT 1`, [county]);
  return r.rows[0]?.county ?? null;
}

/** The SIRUTA codes of a county (its catalogue spelling), ascending. */
export async function uatsOfCounty(db: Db, county: string): Promise<number[]> {
  const r = await db.query<{ siruta: number }>(`SELECT siruta FROM gis_uats WHERE county = $1 ORDER BY siruta`, [county]);
  return r.rows.map((x) => x.siruta);
}

export interface SyncCandidate {
  siruta: number;
  name: string;
  county: string | null;
  /** The last successful sync run's end, any layer. */
  lastSync: Date | null;
}

/** UATs named by SIRUTA or county (compared without diacritics), plus with `withFeatures` every UAT that holds features. */
export async function syncCandidates(
  db: Db,
  q: { sirutas: readonly number[]; counties: readonly string[]; withFeatures: boolean },
): Promise<SyncCandidate[]> {
  const r = await db.query<{ siruta: number; name: string; county: string | null; last_sync: Date | null }>(
    `SELECT u.siruta, u.name, u.county,
            (SELECT max(finished_at) FROM gis_sync_runs s WHERE s.siruta = u.siruta AND s.status = 'done') AS last_sync
       FROM gis_uats u
      WHERE u.siruta = ANY($1::int[])
         OR f_norm(u.county) = ANY(SELECT f_norm(c) FROM unnest($2::text[]) c)
         OR ($3 AND u.siruta IN (SELECT c.siruta FROM ${LAYER_COUNTS_SQL} c))
      ORDER BY u.siruta`,
    [q.sirutas, q.counties, q.withFeatures],
  );
  return r.rows.map((x) => ({ siruta: x.siruta, name: x.name, county: x.county, lastSync: x.last_sync }));
}

export interface SyncResult {
  trigger: 'county' | 'weekend';
  siruta: number;
  uatName: string;
  layers: number;
  failed: number;
  added: number;
  removed: number;
}

/** County and weekend sync runs finished in the 24 h before `now`, one line per UAT and trigger. */
export async function recentSyncResults(db: Db, now: Date): Promise<SyncResult[]> {
  const r = await db.query<{ trigger: 'county' | 'weekend'; siruta: number; name: string | null; layers: number; failed: number; added: number; removed: number }>(
    `SELECT r.trigger, r.siruta, u.name, count(*)::int AS layers, count(*) FILTER (WHERE r.status = 'failed')::int AS failed,
            sum(r.added)::int AS added, sum(r.removed)::int AS removed
       FROM gis_sync_runs r LEFT JOIN gis_uats u ON u.siruta = r.siruta
      WHERE r.trigger IN ('county', 'weekend') AND r.finished_at > $1::timestamptz - interval '24 hours' AND r.finished_at <= $1
      GROUP BY r.trigger, r.siruta, u.name ORDER BY r.trigger, u.name NULLS LAST, r.siruta LIMIT 500`,
    [now],
  );
  return r.rows.map((x) => ({ trigger: x.trigger, siruta: x.siruta, uatName: x.name ?? `SIRUTA ${x.siruta}`, layers: x.layers, failed: x.failed, added: x.added, removed: x.removed }));
}

export interface FeatureLabel {
  siruta: number;
  layerId: string;
  objectId: string;
  cadastralRef: string | null;
  uatName: string | null;
}

/** What names a stored feature to a person: its cadastral number (or OBJECTID), layer and UAT; null when it is not stored. */
export async function featureLabel(db: Db, featureId: string): Promise<FeatureLabel | null> {
  const r = await db.query<{ siruta: number; cadastral_ref: string | null; object_id: string; layer_id: string; uat: string | null }>(
    `SELECT f.siruta, f.cadastral_ref, f.object_id, f.layer_id, u.name AS uat FROM gis_features f LEFT JOIN gis_uats u ON u.siruta = f.siruta WHERE f.id = $1`,
    [featureId],
  );
  const f = r.rows[0];
  return f ? { siruta: f.siruta, layerId: f.layer_id, objectId: f.object_id, cadastralRef: f.cadastral_ref, uatName: f.uat } : null;
}

/** The cadastral numbers of the stored features among `featureIds` (a removed feature is absent). */
export async function cadastralRefs(db: Db, featureIds: readonly string[]): Promise<Map<string, string | null>> {
  const r = await db.query<{ id: string; cadastral_ref: string | null }>(`SELECT id, cadastral_ref FROM gis_features WHERE id = ANY($1::uuid[])`, [featureIds]);
  return new Map(r.rows.map((x) => [x.id, x.cadastral_ref]));
}

/**
 * The UAT whose whole name appears in `text` as words, compared without case and diacritics
 * ("Cluj" does not match "Clujana", "Florești" matches "Floresti"); UATs holding parcels first,
 * then the longest name.
 */
export async function uatNamedIn(prisma: PrismaClient, text: string, parcelLayer: string): Promise<{ siruta: number; name: string; county: string | null } | null> {
  const rows = await prisma.$queryRaw<Array<{ siruta: number; name: string; county: string | null }>>`
    SELECT u.siruta, u.name, u.county
      FROM gis_uats u, (SELECT ${parcelLayer}::text AS layer) p
     WHERE (' ' || regexp_replace(f_norm(${text}), '[^a-z0-9]+', ' ', 'g') || ' ')
           LIKE ('% ' || trim(regexp_replace(f_norm(u.name), '[^a-z0-9]+', ' ', 'g')) || ' %')
     ORDER BY ${Prisma.raw(holdsLayerSql('u.siruta', 'p.layer'))} DESC,
              length(u.name) DESC, u.siruta
     LIMIT 1`;
  return rows[0] ?? null;
}

export interface UatParcels {
  total: number;
  withoutGeometry: number;
  buildings: number;
  /** The first parcels with a cadastral number, by OBJECTID. */
  sample: Array<{ cadastralRef: string; area: number | null }>;
}

/** A UAT's parcel and building counts and a few of its parcels. */
export async function uatParcels(prisma: PrismaClient, siruta: number, layers: { parcels: string; buildings: string }, sampleSize: number): Promise<UatParcels> {
  const [counts] = await prisma.$queryRaw<Array<{ total: number; no_geom: number; buildings: number }>>`
    SELECT count(*) FILTER (WHERE layer_id = ${layers.parcels})::int AS total,
           count(*) FILTER (WHERE layer_id = ${layers.parcels} AND geom IS NULL)::int AS no_geom,
           count(*) FILTER (WHERE layer_id = ${layers.buildings})::int AS buildings
      FROM gis_features WHERE siruta = ${siruta} AND layer_id IN (${Prisma.join([layers.parcels, layers.buildings])})`;
  const sample = await prisma.gisFeature.findMany({
    where: { siruta, layerId: layers.parcels, cadastralRef: { not: null } },
    select: { cadastralRef: true, areaValue: true },
    orderBy: { objectId: 'asc' },
    take: sampleSize,
  });
  return {
    total: counts?.total ?? 0,
    withoutGeometry: counts?.no_geom ?? 0,
    buildings: counts?.buildings ?? 0,
    sample: sample.map((s) => ({ cadastralRef: s.cadastralRef!, area: s.areaValue })),
  };
}

/** The layer catalogue's rows of these layers (a layer it does not list is absent). */
export async function layerCatalogue(db: Db, layerIds: readonly string[]): Promise<Map<string, { name: string | null; category: string | null }>> {
  const r = await db.query<{ layer_id: string; name: string | null; category: string | null }>(
    `SELECT layer_id, name, category FROM gis_layers WHERE layer_id = ANY($1::text[])`,
    [layerIds],
  );
  return new Map(r.rows.map((x) => [x.layer_id, { name: x.name, category: x.category }]));
}

export async function layerListed(db: Db, layerId: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM gis_layers WHERE layer_id = $1`, [layerId]);
  return (r.rowCount ?? 0) > 0;
}

/** `finished_at` of the last successful sync run per layer of the UAT. */
export async function lastSuccessfulSyncs(db: Db, siruta: number, layerIds: readonly string[]): Promise<Map<string, Date>> {
  const r = await db.query<{ layer_id: string; at: Date }>(
    `SELECT layer_id, max(finished_at) AS at FROM gis_sync_runs
      WHERE siruta = $1 AND layer_id = ANY($2::text[]) AND status = 'done' AND finished_at IS NOT NULL
      GROUP BY layer_id`,
    [siruta, layerIds],
  );
  return new Map(r.rows.map((row) => [row.layer_id, row.at]));
}

/** Records a finished run that another area's job made of the store (an export's no-geometry import), so the sync history shows it. */
export async function recordFinishedRun(
  db: Db,
  r: { siruta: number; layerId: string; trigger: string; added: number; removed: number; startedAt: Date; workflowId?: string },
): Promise<void> {
  await db.query(
    `INSERT INTO gis_sync_runs (siruta, layer_id, mode, trigger, status, started_at, finished_at, added, removed, workflow_id)
     VALUES ($1, $2, 'full', $3, 'done', $4, now(), $5, $6, $7)`,
    [r.siruta, r.layerId, r.trigger, r.startedAt, r.added, r.removed, r.workflowId ?? null],
  );
}
