/**
 * The enrichment's SQL over gis_features / gis_uats (docs/enrichment.md): which parcels to enrich
 * and in what order, the building facts BUILD_LEGAL is derived from, writing results, and the
 * local owner search. Parameterised throughout; placeholders are generated, input never is.
 */
import type { Db } from '../db/pool';
import type { BuildingFacts, Enrichment } from './rules';
import { notifyFeatureChanges } from '../notifications/service';
import type { StartDelivery } from '../areaDeps';
import { escapeLike } from '../text/like';

export const PARCEL_LAYER = 'TERENURI_ACTIVE';
export const BUILDING_LAYER = 'CLADIRI_ACTIVE';
export const NO_GEOMETRY = 'NO_GEOMETRY';

/** Spec section 8: single-parcel enrichment skips parcels enriched less than 7 days ago. */
export const ENRICH_FRESH_DAYS = 7;

/**
 * Priority classes of the enrichment queue: parcels marked for re-enrichment (VALID_FROM changed),
 * then never-enriched ones, then those enriched longer than ENRICH_FRESH_DAYS ago. A cursor over
 * (class, id) walks the queue once per run, so a parcel that fails stays behind the cursor.
 */
const CLASS_SQL = `CASE WHEN f.reenrich_marked THEN 0 WHEN f.enriched_at IS NULL THEN 1 ELSE 2 END`;
const DUE_SQL = `(f.reenrich_marked OR f.enriched_at IS NULL OR f.enriched_at < now() - make_interval(days => ${ENRICH_FRESH_DAYS}))`;
/** The portal key of a parcel: IMMOVABLE_ID of the layer, or the negated objectId of a NO_GEOMETRY import. */
const IMMOVABLE_SQL = `COALESCE(NULLIF(f.attributes->>'IMMOVABLE_ID', '')::bigint, CASE WHEN f.object_id < 0 THEN -f.object_id END)`;

export interface EnrichCursor {
  klass: number;
  id: string;
}

export interface ParcelToEnrich {
  id: string;
  objectId: number;
  cadastralRef: string | null;
  immovablePk: number | null;
  klass: number;
}

export async function countParcelsToEnrich(db: Db, siruta: number, force = false): Promise<number> {
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM gis_features f
      WHERE f.siruta = $1 AND f.layer_id = $2 AND f.is_active AND ($3 OR ${DUE_SQL})`,
    [siruta, PARCEL_LAYER, force],
  );
  return r.rows[0].n;
}

export async function nextParcelsToEnrich(db: Db, siruta: number, after: EnrichCursor | null, size: number, force = false): Promise<ParcelToEnrich[]> {
  const r = await db.query<{ id: string; object_id: string; cadastral_ref: string | null; immovable_pk: string | null; klass: number }>(
    `SELECT * FROM (
       SELECT f.id, f.object_id, f.cadastral_ref, ${IMMOVABLE_SQL} AS immovable_pk,
              ${CLASS_SQL} AS klass
         FROM gis_features f
        WHERE f.siruta = $1 AND f.layer_id = $2 AND f.is_active AND ($3 OR ${DUE_SQL})
     ) q
     WHERE $4::int IS NULL OR (q.klass, q.id) > ($4::int, $5::uuid)
     ORDER BY q.klass, q.id
     LIMIT $6`,
    [siruta, PARCEL_LAYER, force, after?.klass ?? null, after?.id ?? null, size],
  );
  return r.rows.map((row) => ({
    id: row.id,
    objectId: Number(row.object_id),
    cadastralRef: row.cadastral_ref,
    immovablePk: row.immovable_pk === null ? null : Number(row.immovable_pk),
    klass: row.klass,
  }));
}

export interface UatContext {
  siruta: number;
  /** The UAT catalogue (gis_uats) has this SIRUTA. */
  known: boolean;
  name: string | null;
  county: string | null;
  workspacePk: number | null;
}

export async function uatContext(db: Db, siruta: number): Promise<UatContext> {
  const r = await db.query<{ name: string; county: string | null; workspace_pk: number | null }>(
    `SELECT name, county, workspace_pk FROM gis_uats WHERE siruta = $1`,
    [siruta],
  );
  const row = r.rows[0];
  return { siruta, known: !!row, name: row?.name ?? null, county: row?.county ?? null, workspacePk: row?.workspace_pk ?? null };
}

/**
 * Buildings of each parcel in the local building layer (spec 2.4: BUILD_LEGAL comes from there).
 * A building belongs to a parcel by the portal's IMMOVABLE_ID; failing that by its number
 * `<parcel>-C<n>` in the same UAT; failing that by lying inside the parcel (the same order the
 * gis_cladiri_status view uses for the way back). Legality is the building's IS_LEGAL flag.
 *
 * The rules are three disjoint lookups glued by UNION ALL, each served by an index
 * (docs/enrichment.md "Performance"; migration 004): a building with an IMMOVABLE_ID matches only
 * by rule 1; one without it by its number (rule 2, `-C<n>` stripped) and, when its number has no
 * `-C<n>` suffix, by a point inside the parcel (rule 3, the GiST index through `&&`). A pair found
 * by both rule 2 and rule 3 (the building's number equals the parcel's) is counted once, as rule 2,
 * so the counts are those of the single OR-join this replaces. The layer name is a literal so the
 * partial indexes apply; the expressions are exactly those of the indexes.
 */
export async function buildingFactsFor(db: Db, siruta: number, parcelIds: readonly string[]): Promise<Map<string, BuildingFacts>> {
  const out = new Map<string, BuildingFacts>(parcelIds.map((id) => [id, { count: 0, legal: null }]));
  if (parcelIds.length === 0) return out;
  const building = `b.siruta = p.siruta AND b.layer_id = '${BUILDING_LAYER}' AND b.is_active`;
  const r = await db.query<{ parcel_id: string; n: number; legal: number; known: number }>(
    `WITH p AS MATERIALIZED (
       SELECT id, siruta, cadastral_ref, attributes->>'IMMOVABLE_ID' AS immovable_id, geom
         FROM gis_features WHERE siruta = $1 AND id = ANY($2::uuid[])
     ), m AS (
       SELECT p.id AS parcel_id, b.attributes->>'IS_LEGAL' AS is_legal
         FROM p JOIN gis_features b
           ON ${building} AND (b.attributes->>'IMMOVABLE_ID') = p.immovable_id
       UNION ALL
       SELECT p.id, b.attributes->>'IS_LEGAL'
         FROM p JOIN gis_features b
           ON ${building} AND regexp_replace(b.cadastral_ref, '-C[0-9]+$', '') = p.cadastral_ref
          AND b.attributes->>'IMMOVABLE_ID' IS NULL
       UNION ALL
       SELECT p.id, b.attributes->>'IS_LEGAL'
         FROM p JOIN gis_features b
           ON ${building} AND b.geom && p.geom
          AND b.attributes->>'IMMOVABLE_ID' IS NULL AND b.cadastral_ref !~ '-C[0-9]+$'
          AND b.cadastral_ref IS DISTINCT FROM p.cadastral_ref
          AND ST_Intersects(p.geom, ST_PointOnSurface(b.geom))
     )
     SELECT parcel_id, count(*)::int AS n,
            count(*) FILTER (WHERE is_legal = '1')::int AS legal,
            count(*) FILTER (WHERE is_legal IN ('0', '1'))::int AS known
       FROM m GROUP BY parcel_id`,
    [siruta, parcelIds],
  );
  for (const row of r.rows) out.set(row.parcel_id, { count: row.n, legal: row.known === row.n ? row.legal : null });
  return out;
}

/**
 * The enrichment fields a parcel's history follows (docs/notifications.md "History"); the layer's
 * own fields (cadastral number, area, geometry) are the sync's.
 */
export const HISTORY_ENRICHMENT_KEYS = ['PROPRIETARI', 'NR_CF', 'ADRESA', 'CATEGORIE'] as const;

/**
 * Stores a parcel's enrichment and, in the same statement, one history row per followed field
 * whose value changed since the previous enrichment (a first known value is not a change, nor is
 * a value the portal did not answer this time). `old` locks the row first, so a concurrent write is compared with what it
 * left. The re-enrichment marker is cleared only when it was set before this enrichment started:
 * a sync that marks the parcel meanwhile keeps it queued. `jobId` names the enrichment workflow
 * that saw the change (none for a single parcel enriched from the map).
 */
export async function writeEnrichment(db: Db, deliver: StartDelivery, id: string, enrichment: Enrichment, startedAt: Date, jobId: string | null = null): Promise<void> {
  const r = await db.query<{ pending: number }>(
    `WITH old AS MATERIALIZED (SELECT id, siruta, enrichment FROM gis_features WHERE id = $1 FOR UPDATE),
     up AS (
       UPDATE gis_features
          SET enrichment = $2::jsonb, enriched_at = $3,
              reenrich_marked = reenrich_marked AND reenrich_marked_at > $4,
              reenrich_marked_at = CASE WHEN reenrich_marked AND reenrich_marked_at > $4 THEN reenrich_marked_at END
        WHERE id = $1),
     hist AS (
       INSERT INTO feature_changes (feature_id, siruta, field, before, after, source, job_id, notified)
       SELECT old.id, old.siruta, k, old.enrichment->>k, $2::jsonb->>k, 'enrichment', $5,
              NOT EXISTS (SELECT 1 FROM watchlist w WHERE w.siruta = old.siruta)
         FROM old CROSS JOIN unnest($6::text[]) k
        WHERE (old.enrichment->>k) IS NOT NULL AND ($2::jsonb->>k) IS NOT NULL AND (old.enrichment->>k) <> ($2::jsonb->>k)
       RETURNING notified)
     SELECT count(*) FILTER (WHERE NOT notified)::int AS pending FROM hist`,
    [id, JSON.stringify(enrichment), enrichment.ENRICHED_AT ?? new Date().toISOString(), startedAt, jobId, HISTORY_ENRICHMENT_KEYS],
  );
  // Watchlist (docs/notifications.md): a followed parcel's changes → its followers' notifications.
  if (r.rows[0].pending > 0) await notifyFeatureChanges(db, deliver, { featureIds: [id] });
}

export interface StoredParcel {
  id: string;
  siruta: number;
  objectId: number;
  cadastralRef: string | null;
  immovablePk: number | null;
  areaValue: number | null;
  geometrySource: string | null;
  enrichment: Record<string, unknown> | null;
  enrichedAt: Date | null;
}

const PARCEL_COLUMNS = `f.id, f.siruta, f.object_id, f.cadastral_ref, ${IMMOVABLE_SQL} AS immovable_pk, f.area_value,
  f.geometry_source, f.enrichment, f.enriched_at`;

type ParcelRow = {
  id: string;
  siruta: number;
  object_id: string;
  cadastral_ref: string | null;
  immovable_pk: string | null;
  area_value: number | null;
  geometry_source: string | null;
  enrichment: Record<string, unknown> | null;
  enriched_at: Date | null;
};

const toParcel = (r: ParcelRow): StoredParcel => ({
  id: r.id,
  siruta: r.siruta,
  objectId: Number(r.object_id),
  cadastralRef: r.cadastral_ref,
  immovablePk: r.immovable_pk === null ? null : Number(r.immovable_pk),
  areaValue: r.area_value,
  geometrySource: r.geometry_source,
  enrichment: r.enrichment,
  enrichedAt: r.enriched_at,
});

export async function findParcel(db: Db, ref: { id: string } | { siruta: number; objectId: number }): Promise<StoredParcel | null> {
  const r =
    'id' in ref
      ? await db.query<ParcelRow>(`SELECT ${PARCEL_COLUMNS} FROM gis_features f WHERE f.id = $1 AND f.layer_id = $2`, [ref.id, PARCEL_LAYER])
      : await db.query<ParcelRow>(`SELECT ${PARCEL_COLUMNS} FROM gis_features f WHERE f.siruta = $1 AND f.object_id = $2 AND f.layer_id = $3`, [
          ref.siruta,
          ref.objectId,
          PARCEL_LAYER,
        ]);
  return r.rows[0] ? toParcel(r.rows[0]) : null;
}

/** Stored parcels of one UAT with these cadastral numbers (never across UATs: spec 2.1). */
export async function parcelsByCadastralRefs(db: Db, siruta: number, refs: readonly string[]): Promise<StoredParcel[]> {
  if (refs.length === 0) return [];
  const r = await db.query<ParcelRow>(
    `SELECT ${PARCEL_COLUMNS} FROM gis_features f WHERE f.siruta = $1 AND f.layer_id = $2 AND f.cadastral_ref = ANY($3::text[])`,
    [siruta, PARCEL_LAYER, refs],
  );
  return r.rows.map(toParcel);
}

export const OWNER_SEARCH_LIMIT = 50;

/**
 * Parcels of a UAT whose current or former owners contain every token (normalised by f_norm, so
 * `stefan` finds Ştefan and Ștefan). Each token is its own LIKE over f_owner_text, which the
 * trigram index gis_features_owner_trgm serves.
 */
export async function searchOwnersLocal(db: Db, siruta: number, tokens: readonly string[], limit = OWNER_SEARCH_LIMIT): Promise<StoredParcel[]> {
  if (tokens.length === 0) return [];
  const params: unknown[] = [siruta, PARCEL_LAYER, limit];
  const conds = tokens.map((t) => {
    params.push(escapeLike(t));
    return `f_owner_text(f.enrichment) LIKE '%' || f_norm($${params.length}) || '%'`;
  });
  const r = await db.query<ParcelRow>(
    `SELECT ${PARCEL_COLUMNS} FROM gis_features f
      WHERE f.siruta = $1 AND f.layer_id = $2 AND f.enrichment IS NOT NULL AND ${conds.join(' AND ')}
      ORDER BY f.cadastral_ref, f.id
      LIMIT $3`,
    params,
  );
  return r.rows.map(toParcel);
}
