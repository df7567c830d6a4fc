/**
 * What an export reads from the store, as SQL handed to ogr2ogr: the layers of each bundle,
 * their human-readable names, and the columns (upper-case Romanian names without diacritics, so
 * QGIS, AutoCAD and Excel all read them). One column list serves the GPKG and the CSV, so the
 * two never disagree.
 *
 * ogr2ogr takes no bind parameters: the only values in this SQL are the SIRUTA code (an integer,
 * checked) and layer ids (checked against the id shape), never text a caller typed.
 */
import { PERSONAL_ENRICHMENT_KEYS } from '../geoportal/rules';

export type ExportMode = 'base' | 'magic';

export interface ExportLayer {
  layerId: string;
  /** GPKG table / CSV / DXF file stem. */
  table: string;
  /** Human-readable title (GPKG identifier, reports). */
  title: string;
  /** DXF layer name (AutoCAD convention: upper case, no diacritics). */
  dxfLayer: string;
}

export const PARCELS_LAYER = 'TERENURI_ACTIVE';
export const BUILDINGS_LAYER = 'CLADIRI_ACTIVE';
/** Marker of records imported from the immovable list without geometry (spec 2.3). */
export const NO_GEOMETRY_SOURCE = 'NO_GEOMETRY';

export const KNOWN_LAYERS: Record<string, ExportLayer> = {
  TERENURI_ACTIVE: { layerId: 'TERENURI_ACTIVE', table: 'parcele', title: 'Parcele', dxfLayer: 'PARCELE' },
  CLADIRI_ACTIVE: { layerId: 'CLADIRI_ACTIVE', table: 'cladiri', title: 'Clădiri', dxfLayer: 'CLADIRI' },
  LIMITE_INTRAV_DYNAMIC: {
    layerId: 'LIMITE_INTRAV_DYNAMIC',
    table: 'limite_intravilan',
    title: 'Limite intravilan',
    dxfLayer: 'LIMITE_INTRAVILAN',
  },
  LIMITE_UAT: { layerId: 'LIMITE_UAT', table: 'limita_uat', title: 'Limita UAT', dxfLayer: 'LIMITA_UAT' },
};

/** Spec 4.4 "Sync behaviours" 3: base = parcels and buildings; magic = every record of the UAT. */
export const BUNDLE_LAYERS: Record<ExportMode, string[]> = {
  base: [PARCELS_LAYER, BUILDINGS_LAYER],
  magic: [PARCELS_LAYER, BUILDINGS_LAYER, 'LIMITE_INTRAV_DYNAMIC', 'LIMITE_UAT'],
};

const LAYER_ID_RE = /^[A-Z][A-Z0-9_]{0,63}$/;

export function checkLayerId(layerId: string): string {
  if (!LAYER_ID_RE.test(layerId)) throw new Error(`invalid layer id ${layerId}`);
  return layerId;
}

export function checkSiruta(siruta: number): number {
  if (!Number.isInteger(siruta) || siruta <= 0) throw new Error(`invalid siruta ${siruta}`);
  return siruta;
}

/** A catalog layer without a hand-made name: table and DXF layer derived from its id. */
export function exportLayerFor(layerId: string, catalogName?: string | null): ExportLayer {
  const known = KNOWN_LAYERS[checkLayerId(layerId)];
  if (known) return known;
  return { layerId, table: layerId.toLowerCase(), title: catalogName ?? layerId, dxfLayer: layerId };
}

export type GeometryKind = 'polygon' | 'line' | 'point';

const GEOMETRY_TYPES: Record<GeometryKind, { pg: string; dim: number; ogr: string }> = {
  polygon: { pg: 'MultiPolygon', dim: 3, ogr: 'MULTIPOLYGON' },
  line: { pg: 'MultiLineString', dim: 2, ogr: 'MULTILINESTRING' },
  point: { pg: 'MultiPoint', dim: 1, ogr: 'MULTIPOINT' },
};

export function ogrGeometryType(kind: GeometryKind): string {
  return GEOMETRY_TYPES[kind].ogr;
}

/** From max(ST_Dimension(geom)) of a layer; a layer without any geometry is declared polygonal. */
export function geometryKindFromDimension(dim: number | null): GeometryKind {
  return dim === 0 ? 'point' : dim === 1 ? 'line' : 'polygon';
}

/**
 * Valid geometries pass as they are; invalid ones are repaired with ST_MakeValid (the quality
 * report counts them) and reduced to the layer's kind, so GPKG and DXF get one declared type.
 */
function geometryExpr(kind: GeometryKind): string {
  const { pg, dim } = GEOMETRY_TYPES[kind];
  return `CASE WHEN f.geom IS NULL THEN NULL
    WHEN ST_IsValid(f.geom) THEN ST_Multi(ST_CollectionExtract(f.geom, ${dim}))
    ELSE ST_Multi(ST_CollectionExtract(ST_MakeValid(f.geom), ${dim})) END::geometry(${pg}, 3844)`;
}

const num = (expr: string) => `CASE WHEN (${expr}) ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (${expr})::double precision END`;
const int01 = (expr: string) =>
  `CASE WHEN (${expr}) IN ('1', 'true', 'DA') THEN 1 WHEN (${expr}) IN ('0', 'false', 'NU') THEN 0 END`;
const e = (key: string) => `f.enrichment->>'${key}'`;
const isoTime = (expr: string) => `to_char((${expr}) AT TIME ZONE 'Europe/Bucharest', 'YYYY-MM-DD"T"HH24:MI:SS')`;

export interface Column {
  name: string;
  /** SQL over `f` (gis_features) and `u` (gis_uats). */
  expr: string;
  /** The enrichment key the column reads; nulled when the key is personal and the viewer may not see it. */
  enrichmentKey?: string;
}

const COMMON_HEAD: Column[] = [
  { name: 'ID', expr: 'f.id::text' },
  { name: 'OBJECTID', expr: 'f.object_id' },
  { name: 'SIRUTA', expr: 'f.siruta' },
  { name: 'UAT', expr: 'u.name' },
  { name: 'JUDET', expr: 'u.county' },
  { name: 'NR_CAD', expr: `COALESCE(f.cadastral_ref, ${e('NR_CAD')})` },
];

const COMMON_TAIL: Column[] = [
  { name: 'SUPRAFATA_GIS', expr: 'f.area_value' },
  { name: 'HAS_GEOMETRY', expr: 'CASE WHEN f.geom IS NULL THEN 0 ELSE 1 END' },
  { name: 'SURSA_GEOMETRIE', expr: `COALESCE(f.geometry_source, 'STRAT')` },
  { name: 'ACTIV', expr: 'CASE WHEN f.is_active THEN 1 ELSE 0 END' },
  { name: 'VALABIL_DIN', expr: isoTime('f.valid_from') },
];

/** Parcels carry every enrichment key of CONTRACT.md section 3 (owners split per spec 2.4 rule 1). */
const PARCEL_COLUMNS: Column[] = [
  ...COMMON_HEAD,
  { name: 'NR_CF', expr: e('NR_CF'), enrichmentKey: 'NR_CF' },
  { name: 'NR_CF_VECHI', expr: e('NR_CF_VECHI'), enrichmentKey: 'NR_CF_VECHI' },
  { name: 'NR_TOPO', expr: e('NR_TOPO'), enrichmentKey: 'NR_TOPO' },
  { name: 'IMMOVABLE_ID', expr: `COALESCE(${e('IMMOVABLE_ID')}, f.attributes->>'IMMOVABLE_ID')` },
  { name: 'WORKSPACE_ID', expr: `COALESCE(${e('WORKSPACE_ID')}, f.attributes->>'WORKSPACE_ID')` },
  { name: 'TIP_IMOBIL', expr: e('TIP_IMOBIL'), enrichmentKey: 'TIP_IMOBIL' },
  { name: 'SUPRAFATA', expr: num(e('SUPRAFATA')) },
  { name: 'SUPRAFATA_MASURATA', expr: num(e('SUPRAFATA_MASURATA')) },
  { name: 'SUPRAFATA_ACTE', expr: num(e('SUPRAFATA_ACTE')) },
  { name: 'INTRAVILAN', expr: e('INTRAVILAN'), enrichmentKey: 'INTRAVILAN' },
  { name: 'CATEGORIE', expr: e('CATEGORIE'), enrichmentKey: 'CATEGORIE' },
  { name: 'FOLOSINTE', expr: `(f.enrichment->'FOLOSINTE')::text` },
  { name: 'ADRESA', expr: e('ADRESA'), enrichmentKey: 'ADRESA' },
  { name: 'PROPRIETARI_ACTUALI', expr: e('PROPRIETARI'), enrichmentKey: 'PROPRIETARI' },
  { name: 'PROPRIETARI_VECHI', expr: e('PROPRIETARI_VECHI'), enrichmentKey: 'PROPRIETARI_VECHI' },
  { name: 'NR_PROPRIETARI', expr: num(e('NR_PROPRIETARI')) },
  { name: 'SOLICITANT', expr: e('SOLICITANT'), enrichmentKey: 'SOLICITANT' },
  { name: 'HAS_BUILDING', expr: int01(e('HAS_BUILDING')) },
  { name: 'BUILD_LEGAL', expr: int01(e('BUILD_LEGAL')) },
  { name: 'DOC', expr: e('DOC'), enrichmentKey: 'DOC' },
  { name: 'DATA_SURSA', expr: e('DATA_SURSA'), enrichmentKey: 'DATA_SURSA' },
  ...COMMON_TAIL,
  { name: 'IMBOGATIT_LA', expr: isoTime('f.enriched_at') },
];

const OTHER_COLUMNS: Column[] = [
  ...COMMON_HEAD,
  { name: 'IMMOVABLE_ID', expr: `f.attributes->>'IMMOVABLE_ID'` },
  ...COMMON_TAIL,
];

export function columnsFor(layerId: string): Column[] {
  return layerId === PARCELS_LAYER ? PARCEL_COLUMNS : OTHER_COLUMNS;
}

export interface SelectOptions {
  siruta: number;
  layerId: string;
  /** false: rows without geometry are left out (base bundle, DXF). */
  includeNullGeometry: boolean;
  /** false: NO_GEOMETRY imports are left out even when null geometries are kept. */
  includeNoGeometryImports: boolean;
  /** Null the personal enrichment keys (enrichment scope basic/none, CONTRACT.md section 3). */
  hidePersonal: boolean;
  geometryKind: GeometryKind;
  /** CSV: every value as text (so every field is quoted), no geometry column. */
  asText?: boolean;
}

function whereClause(o: Pick<SelectOptions, 'siruta' | 'layerId' | 'includeNullGeometry' | 'includeNoGeometryImports'>): string {
  const parts = [`f.siruta = ${checkSiruta(o.siruta)}`, `f.layer_id = '${checkLayerId(o.layerId)}'`];
  if (!o.includeNullGeometry) parts.push('f.geom IS NOT NULL');
  if (!o.includeNoGeometryImports) parts.push(`f.geometry_source IS DISTINCT FROM '${NO_GEOMETRY_SOURCE}'`);
  return parts.join(' AND ');
}

export function layerSelectSql(o: SelectOptions): string {
  const hidden = new Set<string>(o.hidePersonal ? PERSONAL_ENRICHMENT_KEYS : []);
  const cols = columnsFor(o.layerId).map((c) => {
    const expr = c.enrichmentKey && hidden.has(c.enrichmentKey) ? 'NULL::text' : c.expr;
    return `${o.asText ? `(${expr})::text` : expr} AS "${c.name}"`;
  });
  if (!o.asText) cols.push(`${geometryExpr(o.geometryKind)} AS geom`);
  return `SELECT ${cols.join(',\n  ')}
FROM public.gis_features f LEFT JOIN public.gis_uats u ON u.siruta = f.siruta
WHERE ${whereClause(o)}
ORDER BY f.cadastral_ref NULLS LAST, f.object_id`;
}

/** DXF: geometry and the CAD layer name only (DXF has no attribute table worth the name). */
export function dxfSelectSql(siruta: number, layer: ExportLayer, kind: GeometryKind): string {
  return `SELECT '${layer.dxfLayer}'::text AS "Layer", ${geometryExpr(kind)} AS geom
FROM public.gis_features f
WHERE ${whereClause({ siruta, layerId: layer.layerId, includeNullGeometry: false, includeNoGeometryImports: false })}`;
}

/** Count of the rows layerSelectSql returns, for the reports and the tests. */
export function layerCountSql(o: Pick<SelectOptions, 'siruta' | 'layerId' | 'includeNullGeometry' | 'includeNoGeometryImports'>): string {
  return `SELECT count(*)::int AS n FROM public.gis_features f WHERE ${whereClause(o)}`;
}
