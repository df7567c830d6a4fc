/**
 * The single home of the store's derived objects: the tile views of spec 4.1 and the UAT trigger
 * that fills the zoom geometries. Migrations create tables; these objects are (re)applied by the
 * migration runner after the SQL files (ensureDerivedObjects) and by the geoportal setup/optimize
 * routes (setupViews, optimizeViews, optimizeTiles, setupEnrichmentViews). Every object carries a
 * checksum of its SQL in its COMMENT, so "apply" is a no-op when nothing changed.
 *
 * The tile views live in schema `tiles`, because the tile source `gis_features` (spec 4.1) has
 * the same name as the feature table in `public`. Every view's `geom` is EPSG:3857, ready for
 * ST_AsMVTGeom without a per-tile transform.
 */
import { createHash } from 'node:crypto';
import { withTransaction, type Db } from '../db/pool';
import { GRID_ZOOMS, MINZOOM_COLUMN, MINZOOM_FUNCTION, MINZOOM_INDEX_ZOOMS, gridColumn, gridGeomSql, minzoomFunctionSql } from '../tiles/rules';
import { ENRICHED_LAYER_IDS, STORED_PROPERTIES_COLUMN, enrichmentMembersSql } from '../ogc/rules';

export const TILE_SCHEMA = 'tiles';
/**
 * Twins of the feature and status views with more columns: gis_features' gridColumn(z) of each
 * grid zoom (the feature's tile geometry at that zoom, read by the tiles of that zoom) and
 * MINZOOM_COLUMN (its lowest generalised zoom, read by every generalised tile of a source that keeps the common rule;
 * domain/tiles/density.ts). Kept apart because the views of spec 4.1 expose exactly the slim columns.
 */
export const TILE_GRID_SCHEMA = 'tiles_grid';

/** The slim column list of spec 4.1 "optimize-tiles"; every feature view exposes exactly these. */
export const SLIM_FEATURE_COLUMNS = ['id', 'layer_id', 'siruta', 'object_id', 'cadastral_ref', 'area_value', 'is_active', 'geom'] as const;

/**
 * Simplified UAT geometries in EPSG:3857; the tolerance is about one screen pixel at the highest
 * zoom each view serves (156543 m / 2^z per 256-px pixel), so outlines stay crisp and small.
 */
export const UAT_ZOOM_LEVELS = [
  { view: 'gis_uats_z0', column: 'geom_z0', toleranceM: 1000, minzoom: 0, maxzoom: 4 },
  { view: 'gis_uats_z5', column: 'geom_z5', toleranceM: 200, minzoom: 5, maxzoom: 7 },
  { view: 'gis_uats_z8', column: 'geom_z8', toleranceM: 20, minzoom: 8, maxzoom: 11 },
] as const;

// ------------------------------------------------------------------------------------------------
// SQL text
// ------------------------------------------------------------------------------------------------

const uatColumns = 'u.siruta, u.name, u.county, u.workspace_pk, u.area_value';

function uatViewSql(view: string, column: string): string {
  return `CREATE VIEW ${TILE_SCHEMA}.${view} AS
  SELECT ${uatColumns}, u.${column} AS geom
  FROM public.gis_uats u
  WHERE u.${column} IS NOT NULL`;
}

/** `schema`: TILE_SCHEMA, or TILE_GRID_SCHEMA for the twin that adds the grid columns. */
const slim = (a: string, schema: string) =>
  `${a}.id, ${a}.layer_id, ${a}.siruta, ${a}.object_id, ${a}.cadastral_ref, ${a}.area_value, ${a}.is_active, ${a}.geom_3857 AS geom${
    schema === TILE_GRID_SCHEMA ? `, ${GRID_ZOOMS.map((z) => `${a}.${gridColumn(z)}`).join(', ')}, ${a}.${MINZOOM_COLUMN}` : ''
  }`;

function featureViewSql(schema: string, view: string, where: string): string {
  return `CREATE VIEW ${schema}.${view} AS
  SELECT ${slim('f', schema)}
  FROM public.gis_features f
  WHERE f.geom_3857 IS NOT NULL${where ? ` AND ${where}` : ''}`;
}

const byCategory = (category: string) =>
  `f.layer_id IN (SELECT l.layer_id FROM public.gis_layers l WHERE l.category = '${category}')`;

/** Enrichment flags arrive as 1/0, "1"/"0" or true/false; unknown stays NULL (grey on the map). */
const flag = (expr: string) =>
  `CASE WHEN ${expr} IN ('1', 'true') THEN 1 WHEN ${expr} IN ('0', 'false') THEN 0 END`;

const hasEnrichment = (a: string) =>
  `CASE WHEN ${a}.enrichment IS NOT NULL AND ${a}.enrichment <> '{}'::jsonb THEN 1 ELSE 0 END`;

const terenuriStatusSql = (schema: string) => `CREATE VIEW ${schema}.gis_terenuri_status AS
  SELECT ${slim('f', schema)},
    ${hasEnrichment('f')} AS has_enrichment,
    ${flag("f.enrichment->>'HAS_BUILDING'")} AS has_building,
    ${flag("f.enrichment->>'BUILD_LEGAL'")} AS build_legal
  FROM public.gis_features f
  WHERE f.geom_3857 IS NOT NULL AND f.layer_id = 'TERENURI_ACTIVE'`;

// A building's parent parcel: by cadastral number first (building refs read '<parcel>-C<n>'),
// else the parcel under the building's interior point. Each is a single-row subquery. Both keys
// are kept on the building row (BUILDING_PARENT_TRIGGER): computed per building at tile time,
// the regexp and the GEOS interior point were over half of what these lookups cost a dense tile.
const cladiriStatusSql = (schema: string) => `CREATE VIEW ${schema}.gis_cladiri_status AS
  SELECT ${slim('c', schema)},
    ${hasEnrichment('c')} AS has_enrichment,
    1 AS has_building,
    COALESCE(
      (SELECT ${flag("p.enrichment->>'BUILD_LEGAL'")}
         FROM public.gis_features p
        WHERE p.layer_id = 'TERENURI_ACTIVE' AND p.siruta = c.siruta
          AND p.cadastral_ref = c.${BUILDING_PARENT_REF}
          AND p.enrichment IS NOT NULL
        ORDER BY p.enriched_at DESC NULLS LAST
        LIMIT 1),
      (SELECT ${flag("p.enrichment->>'BUILD_LEGAL'")}
         FROM public.gis_features p
        WHERE p.layer_id = 'TERENURI_ACTIVE' AND p.siruta = c.siruta
          AND p.enrichment IS NOT NULL
          AND c.${BUILDING_INTERIOR_POINT} IS NOT NULL AND ST_Intersects(p.geom, c.${BUILDING_INTERIOR_POINT})
        LIMIT 1)
    ) AS build_legal
  FROM public.gis_features c
  WHERE c.geom_3857 IS NOT NULL AND c.layer_id = 'CLADIRI_ACTIVE'`;

/**
 * UAT trigger: geom from the ESRI rings (when the rings change), then the 3857 copy and the zoom
 * simplifications (when geom changes or one of them is still missing, which is also how a backfill
 * runs: `UPDATE gis_uats SET geom = geom WHERE ...`).
 */
const uatTriggerFunctionSql = `CREATE OR REPLACE FUNCTION public.f_gis_uats_derive_geom() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.geometry IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.geometry IS DISTINCT FROM OLD.geometry) THEN
    NEW.geom := public.f_esri_rings_to_geom(NEW.geometry);
  END IF;
  IF NEW.geom IS NULL THEN
    NEW.geom_3857 := NULL;
${UAT_ZOOM_LEVELS.map((z) => `    NEW.${z.column} := NULL;`).join('\n')}
  ELSIF TG_OP = 'INSERT' OR NEW.geom IS DISTINCT FROM OLD.geom OR NEW.geom_3857 IS NULL
     OR ${UAT_ZOOM_LEVELS.map((z) => `NEW.${z.column} IS NULL`).join(' OR ')} THEN
    NEW.geom_3857 := ST_Multi(ST_Transform(NEW.geom, 3857));
${UAT_ZOOM_LEVELS.map(
  (z) =>
    `    NEW.${z.column} := ST_Multi(ST_CollectionExtract(ST_MakeValid(ST_SimplifyPreserveTopology(NEW.geom_3857, ${z.toleranceM})), 3));`,
).join('\n')}
  END IF;
  RETURN NEW;
END $fn$`;

const uatTriggerSql = `DROP TRIGGER IF EXISTS gis_uats_derive_geom ON public.gis_uats;
CREATE TRIGGER gis_uats_derive_geom BEFORE INSERT OR UPDATE ON public.gis_uats
  FOR EACH ROW EXECUTE FUNCTION public.f_gis_uats_derive_geom()`;

/**
 * The fill of a trigger-kept column for the rows that exist: a derived column is not a sync, so it
 * keeps each feature's updated_at (the sync stamp the OGC datetime filter and the export
 * staleness read), and it changes nothing the layer counts count, so their statement trigger need
 * not copy the whole store into its transition tables. Every user trigger is off for the fill (the
 * others fire only on columns a fill does not set); it runs inside its object's transaction, so
 * none is ever left off.
 */
const fillKeepingStamps = (update: string) => `ALTER TABLE public.gis_features DISABLE TRIGGER USER;
${update};
ALTER TABLE public.gis_features ENABLE TRIGGER USER`;

/**
 * Feature counts per UAT and layer (table gis_layer_counts, migration 035), kept by statement
 * triggers: a statement appends what it inserted, minus what it removed (an update: both; nothing
 * when what it changed is not counted), one row per UAT and layer it touched, and folds the older
 * rows of those keys that no other transaction holds into one (SKIP LOCKED). A key's count is the
 * sum of its rows, a handful at most. No writer ever waits on another here, so the counts add no
 * lock to the sync's pages or to an enrichment of the same UAT (an upserted row per key would:
 * a page holding it while it updates a parcel an enrichment holds is a deadlock). Refilled from
 * the features whenever this SQL changes (its checksum), with writers held off meanwhile.
 */
const LAYER_COUNTS_FUNCTION = 'public.f_gis_features_layer_counts';
const LAYER_COUNTS_TRIGGER = 'gis_features_layer_counts_insert';
/** Each count column and what one feature row `r` adds to it. */
const COUNTED: Array<[column: string, of: (r: string) => string]> = [
  ['total', () => '1'],
  ['with_geometry', (r) => `(${r}.geom IS NOT NULL)::int`],
  ['no_geometry', (r) => `(${r}.geometry_source IS NOT DISTINCT FROM 'NO_GEOMETRY')::int`],
  ['enriched', (r) => `(${r}.enrichment IS NOT NULL)::int`],
  ['reenrich_marked', (r) => `(${r}.reenrich_marked)::int`],
];
const COUNT_COLUMNS = COUNTED.map(([c]) => c).join(', ');
const sums = COUNTED.map(([c]) => `sum(${c})`).join(', ');
const nonZero = COUNTED.map(([c]) => `sum(${c}) <> 0`).join(' OR ');
const countsOfRows = (table: string, sign: '' | '-') => `SELECT r.siruta, r.layer_id, ${COUNTED.map(([c, of]) => `${sign}${of('r')} AS ${c}`).join(', ')} FROM ${table} r`;
const layerCountsDelta = (rows: string) => `WITH d AS (${rows}),
    delta AS (
      INSERT INTO public.gis_layer_counts (siruta, layer_id, ${COUNT_COLUMNS})
      SELECT siruta, layer_id, ${sums} FROM d GROUP BY siruta, layer_id HAVING ${nonZero}
      RETURNING siruta, layer_id),
    free AS (
      SELECT c.ctid AS row_id FROM public.gis_layer_counts c
       WHERE (c.siruta, c.layer_id) IN (SELECT siruta, layer_id FROM delta)
         FOR UPDATE OF c SKIP LOCKED),
    folded AS (
      DELETE FROM public.gis_layer_counts c WHERE c.ctid = ANY (ARRAY(SELECT row_id FROM free))
      RETURNING c.*)
    INSERT INTO public.gis_layer_counts (siruta, layer_id, ${COUNT_COLUMNS})
    SELECT siruta, layer_id, ${sums} FROM folded GROUP BY siruta, layer_id HAVING ${nonZero}`;
const layerCountsSql = `LOCK TABLE public.gis_features IN SHARE ROW EXCLUSIVE MODE;
CREATE OR REPLACE FUNCTION ${LAYER_COUNTS_FUNCTION}() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${layerCountsDelta(countsOfRows('new_rows', ''))};
  ELSIF TG_OP = 'DELETE' THEN
    ${layerCountsDelta(countsOfRows('old_rows', '-'))};
  ELSE
    ${layerCountsDelta(`${countsOfRows('old_rows', '-')} UNION ALL ${countsOfRows('new_rows', '')}`)};
  END IF;
  RETURN NULL;
END $fn$;
CREATE OR REPLACE FUNCTION public.f_gis_features_layer_counts_truncate() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM public.gis_layer_counts;
  RETURN NULL;
END $fn$;
DROP TRIGGER IF EXISTS ${LAYER_COUNTS_TRIGGER} ON public.gis_features;
DROP TRIGGER IF EXISTS gis_features_layer_counts_update ON public.gis_features;
DROP TRIGGER IF EXISTS gis_features_layer_counts_delete ON public.gis_features;
DROP TRIGGER IF EXISTS gis_features_layer_counts_truncate ON public.gis_features;
CREATE TRIGGER ${LAYER_COUNTS_TRIGGER} AFTER INSERT ON public.gis_features
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${LAYER_COUNTS_FUNCTION}();
CREATE TRIGGER gis_features_layer_counts_update AFTER UPDATE ON public.gis_features
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${LAYER_COUNTS_FUNCTION}();
CREATE TRIGGER gis_features_layer_counts_delete AFTER DELETE ON public.gis_features
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${LAYER_COUNTS_FUNCTION}();
CREATE TRIGGER gis_features_layer_counts_truncate AFTER TRUNCATE ON public.gis_features
  FOR EACH STATEMENT EXECUTE FUNCTION public.f_gis_features_layer_counts_truncate();
DELETE FROM public.gis_layer_counts;
INSERT INTO public.gis_layer_counts (siruta, layer_id, ${COUNT_COLUMNS})
  SELECT siruta, layer_id, ${sums} FROM (${countsOfRows('public.gis_features', '')}) f
   GROUP BY siruta, layer_id`;

/**
 * The lowest zoom each feature is kept from in generalised tiles (domain/tiles/density.ts): the
 * rule, the column MINZOOM_COLUMN kept by a trigger (after gis_features_geom_3857: BEFORE triggers
 * fire in name order) and filled for every feature, and partial GiST indexes over the features
 * kept at z10–z13: a low-zoom tile reads the few thousand features it keeps instead of every
 * feature under it. A changed rule drops the indexes and refills the column (this SQL's checksum).
 */
export const minzoomIndexName = (z: number) => `gis_features_tile_z${z}`;
const MINZOOM_TRIGGER_FUNCTION = 'public.f_gis_features_tile_minzoom';
const MINZOOM_TRIGGER = 'gis_features_tile_minzoom';
const minzoomOf = (a: string) => `CASE WHEN ${a}.geom_3857 IS NULL THEN NULL ELSE ${MINZOOM_FUNCTION}(${a}.geom_3857, ${a}.object_id) END`;
const tileMinzoomSql = `${MINZOOM_INDEX_ZOOMS.map((z) => `DROP INDEX IF EXISTS public.${minzoomIndexName(z)}`).join(';\n')};
DROP TRIGGER IF EXISTS ${MINZOOM_TRIGGER} ON public.gis_features;
DROP FUNCTION IF EXISTS ${MINZOOM_FUNCTION}(geometry, bigint) CASCADE;
${minzoomFunctionSql()};
CREATE OR REPLACE FUNCTION ${MINZOOM_TRIGGER_FUNCTION}() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.${MINZOOM_COLUMN} := ${minzoomOf('NEW')};
  RETURN NEW;
END $fn$;
CREATE TRIGGER ${MINZOOM_TRIGGER} BEFORE INSERT OR UPDATE OF geom ON public.gis_features
  FOR EACH ROW EXECUTE FUNCTION ${MINZOOM_TRIGGER_FUNCTION}();
${fillKeepingStamps(`UPDATE public.gis_features f SET ${MINZOOM_COLUMN} = ${minzoomOf('f')} WHERE f.geom_3857 IS NOT NULL`)};
${MINZOOM_INDEX_ZOOMS.map(
  (z) => `CREATE INDEX ${minzoomIndexName(z)} ON public.gis_features USING gist (geom_3857)
  WHERE geom_3857 IS NOT NULL AND ${MINZOOM_COLUMN} <= ${z}`,
).join(';\n')}`;

/**
 * gis_features' grid columns (one a grid zoom) kept in step with geom by a trigger (after
 * gis_features_geom_3857, which fills geom_3857: BEFORE triggers fire in name order), and filled
 * for every feature when this SQL changes (its checksum), as the minzoom indexes are rebuilt
 * with their rule.
 */
const TILE_GRID_FUNCTION = 'public.f_gis_features_tile_grid';
const TILE_GRID_TRIGGER = 'gis_features_tile_grid';
const tileGridSql = `CREATE OR REPLACE FUNCTION ${TILE_GRID_FUNCTION}() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
${GRID_ZOOMS.map((z) => `  NEW.${gridColumn(z)} := ${gridGeomSql('NEW.geom_3857', z)};`).join('\n')}
  RETURN NEW;
END $fn$;
DROP TRIGGER IF EXISTS ${TILE_GRID_TRIGGER} ON public.gis_features;
CREATE TRIGGER ${TILE_GRID_TRIGGER} BEFORE INSERT OR UPDATE OF geom ON public.gis_features
  FOR EACH ROW EXECUTE FUNCTION ${TILE_GRID_FUNCTION}();
${fillKeepingStamps(`UPDATE public.gis_features SET ${GRID_ZOOMS.map((z) => `${gridColumn(z)} = ${gridGeomSql('geom_3857', z)}`).join(', ')} WHERE geom_3857 IS NOT NULL`)}`;

/**
 * A building's keys to its parent parcel (migration 030), read by gis_cladiri_status: the parcel
 * number its own names and a point inside it, exactly the expressions the view computed per row
 * before. They depend on the building row alone, so a row trigger keeps them (the trigger names
 * sort before gis_features_geom_3857; it reads only geom); filled for every building when this SQL
 * changes, keeping updated_at as the grid fill does.
 */
const BUILDING_PARENT_FUNCTION = 'public.f_gis_features_building_parent';
const BUILDING_PARENT_TRIGGER = 'gis_features_building_parent';
const BUILDING_PARENT_REF = 'parent_ref';
const BUILDING_INTERIOR_POINT = 'interior_point';
const isBuilding = (a: string) => `${a}.layer_id = 'CLADIRI_ACTIVE'`;
const parentRefSql = (a: string) => `regexp_replace(${a}.cadastral_ref, '-C[0-9]+$', '')`;
const interiorPointSql = (a: string) => `ST_PointOnSurface(${a}.geom)`;
const buildingParentSql = `CREATE OR REPLACE FUNCTION ${BUILDING_PARENT_FUNCTION}() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  IF ${isBuilding('NEW')} THEN
    NEW.${BUILDING_PARENT_REF} := ${parentRefSql('NEW')};
    NEW.${BUILDING_INTERIOR_POINT} := ${interiorPointSql('NEW')};
  ELSE
    NEW.${BUILDING_PARENT_REF} := NULL;
    NEW.${BUILDING_INTERIOR_POINT} := NULL;
  END IF;
  RETURN NEW;
END $fn$;
DROP TRIGGER IF EXISTS ${BUILDING_PARENT_TRIGGER} ON public.gis_features;
CREATE TRIGGER ${BUILDING_PARENT_TRIGGER} BEFORE INSERT OR UPDATE OF geom, cadastral_ref, layer_id ON public.gis_features
  FOR EACH ROW EXECUTE FUNCTION ${BUILDING_PARENT_FUNCTION}();
${fillKeepingStamps(`UPDATE public.gis_features f SET ${BUILDING_PARENT_REF} = ${parentRefSql('f')}, ${BUILDING_INTERIOR_POINT} = ${interiorPointSql('f')}
 WHERE ${isBuilding('f')}`)}`;

/**
 * The OGC properties of each enriched feature (domain/ogc/collections.ts STORED_PROPERTIES_COLUMN),
 * one text per viewer class, kept in step with the enrichment by a trigger and filled for every
 * feature when this SQL changes (its checksum: a changed key list or viewer rule refills them).
 * Only an enrichment write changes them, so the trigger fires on that column (and the layer) only.
 */
const OGC_PROPERTIES_FUNCTION = 'public.f_gis_features_ogc_properties';
const OGC_PROPERTIES_TRIGGER = 'gis_features_ogc_properties';
const enrichedLayers = ENRICHED_LAYER_IDS.map((l) => `'${l}'`).join(', ');
const ogcPropertiesSql = `CREATE OR REPLACE FUNCTION ${OGC_PROPERTIES_FUNCTION}() RETURNS trigger
  LANGUAGE plpgsql AS $fn$
BEGIN
  -- A feature not yet enriched keeps NULL: the sync's inserts pay nothing, and a page reads the
  -- class's all-null text computed once per statement (domain/ogc/features.ts propertiesSql).
  IF NEW.layer_id IN (${enrichedLayers}) AND NEW.enrichment IS NOT NULL THEN
    NEW.${STORED_PROPERTIES_COLUMN.full} := ${enrichmentMembersSql('full', 'NEW')};
    NEW.${STORED_PROPERTIES_COLUMN.restricted} := ${enrichmentMembersSql('restricted', 'NEW')};
  ELSE
    NEW.${STORED_PROPERTIES_COLUMN.full} := NULL;
    NEW.${STORED_PROPERTIES_COLUMN.restricted} := NULL;
  END IF;
  RETURN NEW;
END $fn$;
DROP TRIGGER IF EXISTS ${OGC_PROPERTIES_TRIGGER} ON public.gis_features;
CREATE TRIGGER ${OGC_PROPERTIES_TRIGGER} BEFORE INSERT OR UPDATE OF enrichment, layer_id ON public.gis_features
  FOR EACH ROW EXECUTE FUNCTION ${OGC_PROPERTIES_FUNCTION}();
${fillKeepingStamps(`UPDATE public.gis_features f SET ${STORED_PROPERTIES_COLUMN.full} = ${enrichmentMembersSql('full', 'f')},
       ${STORED_PROPERTIES_COLUMN.restricted} = ${enrichmentMembersSql('restricted', 'f')}
 WHERE f.layer_id IN (${enrichedLayers}) AND f.enrichment IS NOT NULL`)}`;

// ------------------------------------------------------------------------------------------------
// Derived objects and their checksums
// ------------------------------------------------------------------------------------------------

type Derived = {
  name: string;
  group: 'uat-trigger' | 'layer-counts' | 'tile-minzoom' | 'tile-grid' | 'building-parent' | 'ogc-properties' | 'uat-views' | 'feature-views' | 'status-views' | 'grid-views';
  sql: string;
  /** A trigger function: current only while this trigger calls it. */
  trigger?: string;
};

const view = (group: Derived['group'], name: string, sql: string, schema = TILE_SCHEMA): Derived => ({ name: `${schema}.${name}`, group, sql });

/** The feature views (schema TILE_SCHEMA, or their twins in TILE_GRID_SCHEMA). */
const featureViews = (schema: string): Array<[string, string]> => [
  ['gis_features', featureViewSql(schema, 'gis_features', '')],
  ['gis_terenuri', featureViewSql(schema, 'gis_terenuri', "f.layer_id = 'TERENURI_ACTIVE'")],
  ['gis_cladiri', featureViewSql(schema, 'gis_cladiri', "f.layer_id = 'CLADIRI_ACTIVE'")],
  ['gis_administrativ', featureViewSql(schema, 'gis_administrativ', byCategory('administrativ'))],
  ['gis_documentatii', featureViewSql(schema, 'gis_documentatii', byCategory('documentatii'))],
  ['gis_terenuri_status', terenuriStatusSql(schema)],
  ['gis_cladiri_status', cladiriStatusSql(schema)],
];

/** In dependency order: the trigger before the views, plain feature views before status views. */
export const DERIVED_OBJECTS: readonly Derived[] = [
  { name: 'public.f_gis_uats_derive_geom', group: 'uat-trigger', sql: `${uatTriggerFunctionSql};\n${uatTriggerSql}`, trigger: 'gis_uats_derive_geom' },
  { name: LAYER_COUNTS_FUNCTION, group: 'layer-counts', sql: layerCountsSql, trigger: LAYER_COUNTS_TRIGGER },
  { name: MINZOOM_FUNCTION, group: 'tile-minzoom', sql: tileMinzoomSql },
  { name: TILE_GRID_FUNCTION, group: 'tile-grid', sql: tileGridSql, trigger: TILE_GRID_TRIGGER },
  { name: BUILDING_PARENT_FUNCTION, group: 'building-parent', sql: buildingParentSql, trigger: BUILDING_PARENT_TRIGGER },
  { name: OGC_PROPERTIES_FUNCTION, group: 'ogc-properties', sql: ogcPropertiesSql, trigger: OGC_PROPERTIES_TRIGGER },
  ...UAT_ZOOM_LEVELS.map((z) => view('uat-views', z.view, uatViewSql(z.view, z.column))),
  view('uat-views', 'gis_uats_z12', uatViewSql('gis_uats_z12', 'geom_3857')),
  ...featureViews(TILE_SCHEMA).map(([name, sql]) => view(name.endsWith('_status') ? 'status-views' : 'feature-views', name, sql)),
  ...featureViews(TILE_GRID_SCHEMA).map(([name, sql]) => view('grid-views', name, sql, TILE_GRID_SCHEMA)),
];

const checksum = (sql: string) => `derived:${createHash('sha256').update(sql).digest('hex').slice(0, 16)}`;

async function currentComment(db: Db, obj: Derived): Promise<string | null> {
  if (obj.group === 'tile-minzoom') {
    // Current only with its trigger and every one of its indexes in place.
    const r = await db.query<{ c: string | null }>(
      `SELECT obj_description(p.oid, 'pg_proc') AS c FROM pg_proc p
         JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname || '.' || p.proname = $1
          AND (SELECT count(*) FROM pg_indexes WHERE schemaname = 'public' AND indexname = ANY($2)) = cardinality($2)
          AND EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgname = $3 AND t.tgrelid = 'public.gis_features'::regclass)`,
      [obj.name, MINZOOM_INDEX_ZOOMS.map(minzoomIndexName), MINZOOM_TRIGGER],
    );
    return r.rowCount ? r.rows[0].c ?? '' : null;
  }
  const r = obj.trigger
    ? await db.query<{ c: string | null }>(
        `SELECT obj_description(p.oid, 'pg_proc') AS c FROM pg_proc p
          JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname || '.' || p.proname = $1
           AND EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgname = $2 AND t.tgfoid = p.oid)`,
        [obj.name, obj.trigger],
      )
    : await db.query<{ c: string | null }>(`SELECT obj_description(to_regclass($1), 'pg_class') AS c WHERE to_regclass($1) IS NOT NULL`, [
        obj.name,
      ]);
  return r.rowCount ? r.rows[0].c ?? '' : null;
}

async function apply(db: Db, obj: Derived): Promise<void> {
  const sum = checksum(obj.sql);
  if (obj.trigger) {
    await db.query(obj.sql);
    await db.query(`COMMENT ON FUNCTION ${obj.name}() IS '${sum}'`);
    return;
  }
  if (obj.group === 'tile-minzoom') {
    await db.query(obj.sql);
    await db.query(`COMMENT ON FUNCTION ${obj.name}(geometry, bigint) IS '${sum}'`);
    return;
  }
  // CREATE OR REPLACE VIEW cannot drop or retype columns; drop and create keeps changes simple.
  await db.query(`DROP VIEW IF EXISTS ${obj.name} CASCADE`);
  await db.query(obj.sql);
  await db.query(`COMMENT ON VIEW ${obj.name} IS '${sum}'`);
}

/** Serialises DDL between concurrent callers (two routes, or a route and the migration runner). */
async function lockDdl(db: Db): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('geoportal:store:derived-objects'))`);
}

async function applyGroups(db: Db, groups: Derived['group'][], force: boolean): Promise<string[]> {
  return withTransaction(async (tx) => {
    await lockDdl(tx);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${TILE_SCHEMA}`);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${TILE_GRID_SCHEMA}`);
    const done: string[] = [];
    for (const obj of DERIVED_OBJECTS) {
      if (!groups.includes(obj.group)) continue;
      // A CASCADE drop earlier in this loop can remove a later object: re-read each time.
      const now = await currentComment(tx, obj);
      if (!force && now === checksum(obj.sql)) continue;
      await apply(tx, obj);
      done.push(obj.name);
    }
    return done;
  }, db);
}

/** Applies every derived object whose SQL changed or that is missing; returns what it (re)created. */
export async function ensureDerivedObjects(db: Db): Promise<string[]> {
  return applyGroups(db, ['uat-trigger', 'layer-counts', 'tile-minzoom', 'tile-grid', 'building-parent', 'ogc-properties', 'uat-views', 'feature-views', 'status-views', 'grid-views'], false);
}

export type ViewState = { name: string; exists: boolean; current: boolean };

/** Which derived objects exist, and whether each matches the code's SQL. */
export async function viewStatus(db: Db): Promise<ViewState[]> {
  const out: ViewState[] = [];
  for (const obj of DERIVED_OBJECTS) {
    const c = await currentComment(db, obj);
    out.push({ name: obj.name, exists: c !== null, current: c === checksum(obj.sql) });
  }
  return out;
}

/** GET /api/geoportal/setup-views: do the UAT zoom views exist? */
export async function uatViewsExist(db: Db): Promise<{ exists: boolean; views: ViewState[] }> {
  const views = (await viewStatus(db)).filter((v) => DERIVED_OBJECTS.find((o) => o.name === v.name)?.group === 'uat-views');
  return { exists: views.every((v) => v.exists), views };
}

/** POST /api/geoportal/setup-views: creates the UAT zoom views that are missing or outdated. */
export async function setupViews(db: Db): Promise<{ created: string[]; existing: string[] }> {
  const created = await applyGroups(db, ['uat-views'], false);
  const existing = DERIVED_OBJECTS.filter((o) => o.group === 'uat-views' && !created.includes(o.name)).map((o) => o.name);
  return { created, existing };
}

export type OptimizeViewsReport = {
  columnsAdded: string[];
  backfilled: number;
  indexesCreated: string[];
  views: string[];
  trigger: string;
};

/**
 * POST /api/geoportal/optimize-views, the five steps of spec 4.1. On a migrated store the columns
 * and indexes already exist; the steps still run so an old database catches up, and a second
 * call only re-reports.
 */
export async function optimizeViews(db: Db): Promise<OptimizeViewsReport> {
  return withTransaction(async (tx) => {
    await lockDdl(tx);
    const wanted = ['geom_3857', ...UAT_ZOOM_LEVELS.map((z) => z.column)];
    const have = await tx.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'gis_uats' AND column_name = ANY($1)`,
      [wanted],
    );
    const columnsAdded = wanted.filter((c) => !have.rows.some((r) => r.column_name === c));
    for (const c of columnsAdded) await tx.query(`ALTER TABLE public.gis_uats ADD COLUMN ${c} geometry(MultiPolygon, 3857)`);

    const indexesCreated: string[] = [];
    for (const c of wanted) {
      const idx = `gis_uats_${c}_gist`;
      const exists = await tx.query(`SELECT 1 FROM pg_indexes WHERE schemaname = 'public' AND indexname = $1`, [idx]);
      if (exists.rowCount) continue;
      await tx.query(`CREATE INDEX ${idx} ON public.gis_uats USING gist (${c})`);
      indexesCreated.push(idx);
    }

    const trigger = DERIVED_OBJECTS.find((o) => o.group === 'uat-trigger')!;
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${TILE_SCHEMA}`);
    await apply(tx, trigger);
    // The trigger fills whatever is missing, so touching geom is the one backfill code path.
    const missing = wanted.map((c) => `${c} IS NULL`).join(' OR ');
    const backfill = await tx.query(`UPDATE public.gis_uats SET geom = geom WHERE geom IS NOT NULL AND (${missing})`);

    const views: string[] = [];
    for (const obj of DERIVED_OBJECTS.filter((o) => o.group === 'uat-views')) {
      await apply(tx, obj);
      views.push(obj.name);
    }
    return { columnsAdded, backfilled: backfill.rowCount ?? 0, indexesCreated, views, trigger: trigger.name };
  }, db);
}

/**
 * POST /api/geoportal/optimize-tiles: recreates the feature views with the slim columns only; the
 * status views are recreated too, since a cascading drop would take anything built on them.
 */
export async function optimizeTiles(db: Db): Promise<{ recreated: string[]; columns: readonly string[] }> {
  const recreated = await applyGroups(db, ['feature-views', 'status-views'], true);
  return { recreated, columns: SLIM_FEATURE_COLUMNS };
}

/** POST /api/geoportal/setup-enrichment-views: drops, then creates the two status views. */
export async function setupEnrichmentViews(db: Db): Promise<{ recreated: string[]; columns: string[] }> {
  const recreated = await applyGroups(db, ['status-views'], true);
  return { recreated, columns: [...SLIM_FEATURE_COLUMNS, 'has_enrichment', 'has_building', 'build_legal'] };
}
