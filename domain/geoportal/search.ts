/**
 * GET /api/geoportal/search (spec 4.1, CONTRACT.md section 4): UATs by name, parcels by cadastral
 * reference, owners by name, each with its UAT's name and county joined and a WGS84 bbox to fly
 * to. Matching is case- and diacritic-insensitive through the store's f_norm (both ş/ș and ţ/ț
 * spellings), served by the trigram indexes of migration 001. An optional `siruta` narrows parcels
 * and owners to one UAT (a common surname fills any page from the largest UATs otherwise).
 */
import { onOwnConnection } from '../db/ownConnection';
import type { Db } from '../db/pool';
import { escapeLike } from '../text/like';
import { matchingOwner } from './text';
import { parcelsBox } from './uat';
import { holdsLayerSql } from '../store/holdings';
import type { Bbox, SearchResult, Viewer } from './types';

/** Owner search below three letters would match most of the store and say nothing. */
export const OWNER_QUERY_MIN_LENGTH = 3;

const PARCEL_LAYER = 'TERENURI_ACTIVE';

type BboxRow = { min_lon: number | null; min_lat: number | null; max_lon: number | null; max_lat: number | null };

const bboxOf = (r: BboxRow): Bbox | undefined =>
  r.min_lon === null || r.min_lat === null || r.max_lon === null || r.max_lat === null
    ? undefined
    : [r.min_lon, r.min_lat, r.max_lon, r.max_lat];

// box2d of the geometry transformed to 4326; for a UAT the envelope is transformed first (cheap,
// and a few metres of slack do not matter for a fly-to).
const bboxColumns = (expr: string) =>
  `ST_XMin(${expr}) AS min_lon, ST_YMin(${expr}) AS min_lat, ST_XMax(${expr}) AS max_lon, ST_YMax(${expr}) AS max_lat`;

/**
 * Where a UAT hit flies to: its boundary; a UAT whose boundary the catalogue has not given yet
 * falls back to the extent of its parcels (as uat-bounds does, kept a while by uat.ts
 * parcelsBox), then to its county's extent, so a hit always moves the map somewhere meaningful
 * (`bboxOf` says which).
 */
async function searchUats(db: Db, q: string, limit: number): Promise<SearchResult[]> {
  const r = await db.query<BboxRow & { siruta: number; name: string; county: string | null; has_boundary: boolean; county_box: boolean; synced: boolean }>(
    `WITH hits AS (
       SELECT u.siruta, u.name, u.county, u.geom
         FROM gis_uats u
        WHERE f_norm(u.name) LIKE '%' || f_norm($1) || '%'
        ORDER BY f_norm(u.name) = f_norm($1) DESC, f_norm(u.name) LIKE f_norm($1) || '%' DESC, length(u.name), u.name
        LIMIT $2)
     SELECT h.siruta, h.name, h.county, ${bboxColumns('b.box')},
            h.geom IS NOT NULL AS has_boundary, c.box IS NOT NULL AS county_box,
            ${holdsLayerSql('h.siruta', '$3::text')} AS synced
       FROM hits h
       LEFT JOIN LATERAL (
         SELECT box2d(ST_Transform(ST_SetSRID(ST_Extent(o.geom)::geometry, 3844), 4326)) AS box
           FROM gis_uats o WHERE h.geom IS NULL AND o.county = h.county AND o.geom IS NOT NULL) c ON true
       LEFT JOIN LATERAL (
         SELECT COALESCE(box2d(ST_Transform(ST_Envelope(h.geom), 4326)), c.box) AS box) b ON true
      ORDER BY f_norm(h.name) = f_norm($1) DESC, f_norm(h.name) LIKE f_norm($1) || '%' DESC, length(h.name), h.name`,
    [escapeLike(q), limit, PARCEL_LAYER],
  );
  return Promise.all(
    r.rows.map(async (row) => {
      const parcels = !row.has_boundary ? await parcelsBox(db, row.siruta) : undefined;
      const bbox = parcels ?? bboxOf(row);
      const from = row.has_boundary ? 'uat' : parcels ? 'parcels' : row.county_box ? 'county' : null;
      return {
        kind: 'uat' as const,
        label: row.county ? `${row.name} (${row.county})` : row.name,
        siruta: row.siruta,
        uatName: row.name,
        county: row.county,
        synced: row.synced,
        ...(bbox && from ? { bbox, bboxOf: from } : {}),
      };
    }),
  );
}

type FeatureRow = BboxRow & {
  id: string;
  siruta: number;
  /** bigint: pg answers it as a string. */
  object_id: string;
  cadastral_ref: string | null;
  uat_name: string | null;
  county: string | null;
};

async function searchParcels(db: Db, q: string, limit: number, siruta: number | undefined): Promise<SearchResult[]> {
  // Cadastral references are numbers (sometimes with a suffix): an exact match first, then the
  // references that start with the query, shortest first. The exact match is the one match of
  // the query's own length, so that order is (length, reference, UAT), and the page is read
  // length by length through gis_features_cadref_prefix (migration 036): `limit` index rows at
  // most per length, not every reference that starts with the typed digits. `USING ~<~` is the
  // index's byte order (text_pattern_ops), which is the order of the digits too.
  const r = await db.query<FeatureRow>(
    `SELECT f.id, f.siruta, f.object_id, f.cadastral_ref, u.name AS uat_name, u.county,
            ${bboxColumns('box2d(ST_Transform(f.geom, 4326))')}
       FROM generate_series(length($4::text), (SELECT max(length(cadastral_ref)) FROM gis_features WHERE layer_id = $3)) AS k(len)
      CROSS JOIN LATERAL (
        SELECT f.id, f.siruta, f.object_id, f.cadastral_ref, f.geom FROM gis_features f
         WHERE f.layer_id = $3 AND length(f.cadastral_ref) = k.len AND f.cadastral_ref LIKE $1 || '%' AND ($5::int IS NULL OR f.siruta = $5)
         ORDER BY f.cadastral_ref USING ~<~, f.siruta
         LIMIT $2) f
       LEFT JOIN gis_uats u ON u.siruta = f.siruta
      ORDER BY k.len, f.cadastral_ref USING ~<~, f.siruta
      LIMIT $2`,
    [escapeLike(q), limit, PARCEL_LAYER, q, siruta ?? null],
  );
  return r.rows.map((row) => ({
    kind: 'parcel' as const,
    label: `Nr. cadastral ${row.cadastral_ref ?? '?'} · ${row.uat_name ?? `UAT ${row.siruta}`}`,
    siruta: row.siruta,
    uatName: row.uat_name,
    county: row.county,
    featureId: row.id,
    objectId: Number(row.object_id),
    ...(row.cadastral_ref !== null ? { cadastralRef: row.cadastral_ref } : {}),
    ...(bboxOf(row) ? { bbox: bboxOf(row) } : {}),
  }));
}

async function searchOwners(db: Db, q: string, limit: number, siruta: number | undefined): Promise<SearchResult[]> {
  const r = await db.query<FeatureRow & { owners: string | null; former: string | null }>(
    `SELECT f.id, f.siruta, f.object_id, f.cadastral_ref, u.name AS uat_name, u.county,
            f.enrichment->>'PROPRIETARI' AS owners, f.enrichment->>'PROPRIETARI_VECHI' AS former,
            ${bboxColumns('box2d(ST_Transform(f.geom, 4326))')}
       FROM gis_features f
       LEFT JOIN gis_uats u ON u.siruta = f.siruta
      WHERE f.enrichment IS NOT NULL AND f.layer_id = $3
        AND f_owner_text(f.enrichment) LIKE '%' || f_norm($1) || '%'
        AND ($4::int IS NULL OR f.siruta = $4)
      ORDER BY u.name, f.cadastral_ref
      LIMIT $2`,
    [escapeLike(q), limit, PARCEL_LAYER, siruta ?? null],
  );
  return r.rows.map((row) => {
    const current = matchingOwner(row.owners, q);
    const ownerName = current ?? matchingOwner(row.former, q) ?? q;
    return {
      kind: 'owner' as const,
      label: `${ownerName}${current ? '' : ' (fost proprietar)'} · nr. cadastral ${row.cadastral_ref ?? '?'}, ${row.uat_name ?? `UAT ${row.siruta}`}`,
      siruta: row.siruta,
      uatName: row.uat_name,
      county: row.county,
      featureId: row.id,
      objectId: Number(row.object_id),
      ownerName,
      ...(row.cadastral_ref !== null ? { cadastralRef: row.cadastral_ref } : {}),
      ...(bboxOf(row) ? { bbox: bboxOf(row) } : {}),
    };
  });
}

/**
 * Owners are personal data: nobody on the basic panel nor with a scope that hides owners
 * (redact.ts) gets owner matches, so the search cannot be used to read what the panel hides.
 */
export function ownerSearchAllowed(viewer: Viewer): boolean {
  return viewer.personalData;
}

/**
 * Results in a stable order: UATs, then parcels, then owners, at most `limit` in all. With
 * `siruta`, parcels and owners come from that UAT only and no UAT is listed (the user already
 * picked one).
 */
export async function searchGeoportal(
  q: string,
  limit: number,
  viewer: Viewer,
  opts: { siruta?: number } = {},
  db: Db,
  signal?: AbortSignal,
): Promise<{ results: SearchResult[] }> {
  const text = q.trim();
  const looksCadastral = /\d/.test(text);
  const { siruta } = opts;
  // The box aborts a search a later keystroke supersedes; an owner search without a UAT is a
  // trigram scan of every enriched parcel's owners and a sort, so each part runs on a connection
  // of its own (as many as it took from the pool before) that PostgreSQL cancels then.
  const part = (search: (conn: Db) => Promise<SearchResult[]>) => onOwnConnection(db, signal, search);
  const [uats, parcels, owners] = await Promise.all([
    siruta === undefined ? part((c) => searchUats(c, text, limit)) : Promise.resolve([]),
    looksCadastral ? part((c) => searchParcels(c, text, limit, siruta)) : Promise.resolve([]),
    !looksCadastral && text.length >= OWNER_QUERY_MIN_LENGTH && ownerSearchAllowed(viewer)
      ? part((c) => searchOwners(c, text, limit, siruta))
      : Promise.resolve([]),
  ]);
  return { results: [...uats, ...parcels, ...owners].slice(0, limit) };
}
