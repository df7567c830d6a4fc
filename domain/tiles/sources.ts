/**
 * What each tile source of spec 4.1 puts into its MVT layer: the layer name (the source name, as
 * Martin names layers, so the proxy mode and the direct mode give the map the same layers), the
 * attribute columns and their TileJSON field types. The relation and zoom range come from
 * TILE_SOURCES (domain/store/views.ts), the one list of what may be served.
 */
import { TILE_SOURCES, type TileSource } from '../store/views';

export type FieldType = 'String' | 'Number' | 'Boolean';

export interface TileLayerSpec extends TileSource {
  /** MVT layer name inside the tile. */
  layer: string;
  /** Column name → SQL expression over alias `t` and TileJSON type. */
  fields: ReadonlyArray<{ name: string; sql: string; type: FieldType; description: string }>;
  description: string;
}

const UAT_FIELDS: TileLayerSpec['fields'] = [
  { name: 'siruta', sql: 't.siruta', type: 'Number', description: 'Cod SIRUTA al UAT' },
  { name: 'name', sql: 't.name', type: 'String', description: 'Denumirea UAT' },
  { name: 'county', sql: 't.county', type: 'String', description: 'Județ' },
  { name: 'workspace_pk', sql: 't.workspace_pk', type: 'Number', description: 'Cod județ (workspace)' },
  { name: 'area_value', sql: 't.area_value', type: 'Number', description: 'Suprafață (m²)' },
];

// The slim columns of spec 4.1 "optimize-tiles" minus geom. uuid has no MVT value type: as text.
const FEATURE_FIELDS: TileLayerSpec['fields'] = [
  { name: 'id', sql: 't.id::text', type: 'String', description: 'Identificatorul obiectului (uuid)' },
  { name: 'layer_id', sql: 't.layer_id', type: 'String', description: 'Stratul de origine' },
  { name: 'siruta', sql: 't.siruta', type: 'Number', description: 'Cod SIRUTA al UAT' },
  { name: 'object_id', sql: 't.object_id', type: 'Number', description: 'OBJECTID în stratul de origine' },
  { name: 'cadastral_ref', sql: 't.cadastral_ref', type: 'String', description: 'Număr cadastral' },
  { name: 'area_value', sql: 't.area_value', type: 'Number', description: 'Suprafață (m²)' },
  { name: 'is_active', sql: 't.is_active', type: 'Boolean', description: 'Activ' },
];

const STATUS_FIELDS: TileLayerSpec['fields'] = [
  ...FEATURE_FIELDS,
  { name: 'has_enrichment', sql: 't.has_enrichment', type: 'Number', description: '1 = date îmbogățite' },
  { name: 'has_building', sql: 't.has_building', type: 'Number', description: '1 = are construcție' },
  { name: 'build_legal', sql: 't.build_legal', type: 'Number', description: '1 = construcție cu acte, 0 = fără, lipsă = necunoscut' },
];

const DESCRIPTIONS: Record<string, string> = {
  gis_uats_z0: 'Limite UAT, simplificate pentru zoom 0–4',
  gis_uats_z5: 'Limite UAT, simplificate pentru zoom 5–7',
  gis_uats_z8: 'Limite UAT, simplificate pentru zoom 8–11',
  gis_uats_z12: 'Limite UAT, geometrie completă',
  gis_features: 'Toate obiectele cu geometrie',
  gis_terenuri: 'Parcele (TERENURI_ACTIVE)',
  gis_cladiri: 'Clădiri (CLADIRI_ACTIVE)',
  gis_administrativ: 'Straturi administrative',
  gis_documentatii: 'Documentații',
  gis_terenuri_status: 'Parcele cu starea îmbogățirii',
  gis_cladiri_status: 'Clădiri cu starea actelor',
};

export const TILE_LAYERS: readonly TileLayerSpec[] = TILE_SOURCES.map((s) => ({
  ...s,
  layer: s.name,
  fields: s.kind === 'uat' ? UAT_FIELDS : s.kind === 'status' ? STATUS_FIELDS : FEATURE_FIELDS,
  description: DESCRIPTIONS[s.name] ?? s.name,
}));

const byName = new Map(TILE_LAYERS.map((l) => [l.name, l]));

export function tileLayer(source: string): TileLayerSpec | undefined {
  return byName.get(source);
}

export const TILE_SOURCE_NAMES: readonly string[] = TILE_LAYERS.map((l) => l.name);

/**
 * Sources whose tiles change when a layer of the store changes: what a sync of that layer bumps.
 * Parcels also feed the building status (build_legal comes from the parent parcel).
 */
export function tileSourcesForLayer(layerId: string): string[] {
  switch (layerId) {
    case 'LIMITE_UAT':
      return TILE_LAYERS.filter((l) => l.kind === 'uat').map((l) => l.name);
    case 'TERENURI_ACTIVE':
      return ['gis_features', 'gis_terenuri', 'gis_terenuri_status', 'gis_cladiri_status'];
    case 'CLADIRI_ACTIVE':
      return ['gis_features', 'gis_cladiri', 'gis_cladiri_status'];
    default:
      // Other catalog layers land in gis_features and, by category, administrativ/documentatii.
      return ['gis_features', 'gis_administrativ', 'gis_documentatii'];
  }
}

/** Enrichment changes only the status views' columns. */
export const ENRICHMENT_TILE_SOURCES: readonly string[] = ['gis_terenuri_status', 'gis_cladiri_status'];
