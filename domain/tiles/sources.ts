/**
 * What each tile source of spec 4.1 puts into its MVT layer: the layer name (the source name, as
 * Martin names layers, so the proxy mode and the direct mode give the map the same layers), the
 * attribute columns and their TileJSON field types, and from which zoom each attribute is in the
 * tile. The relation and zoom range come from TILE_SOURCES (domain/store/views.ts), the one list
 * of what may be served.
 *
 * Feature and status tiles carry the full slim column list of spec 4.1 from DETAIL_MINZOOM (16,
 * where the map starts drawing cadastral labels and a parcel is big enough to read) and only what
 * the map draws below it: the status flags that colour it, `siruta`, `layer_id` where a source
 * mixes layers, and the MVT feature id = object_id. (siruta, object_id[, layer_id]) is the
 * feature's key (unique in gis_features), which the feature route takes, so a click at any zoom
 * identifies its feature without the 36-character uuid that made up ~40% of a low-zoom tile
 * (docs/tiles.md "Performance").
 */
import { TILE_SOURCES, type TileSource } from '../store/views';

export type FieldType = 'String' | 'Number' | 'Boolean';

/** Feature and status tiles carry every attribute from this zoom on, the reduced set below it. */
export const DETAIL_MINZOOM = 16;

export interface TileField {
  name: string;
  /** SQL expression over alias `t`. */
  sql: string;
  type: FieldType;
  description: string;
  /** Lowest zoom whose tiles hold this attribute (absent: every zoom of the source). */
  minzoom?: number;
}

export interface TileLayerSpec extends TileSource {
  /** MVT layer name inside the tile. */
  layer: string;
  /** Every attribute the layer can hold, in column order. */
  fields: readonly TileField[];
  /**
   * Column used as the MVT feature id (ST_AsMVT feature_id_name), on every zoom; not repeated as
   * a property by ST_AsMVT, so a z16+ tile also lists object_id among the fields.
   */
  featureId?: { sql: string; description: string };
  description: string;
}

const UAT_FIELDS: readonly TileField[] = [
  { name: 'siruta', sql: 't.siruta', type: 'Number', description: 'Cod SIRUTA al UAT' },
  { name: 'name', sql: 't.name', type: 'String', description: 'Denumirea UAT' },
  { name: 'county', sql: 't.county', type: 'String', description: 'Județ' },
  { name: 'workspace_pk', sql: 't.workspace_pk', type: 'Number', description: 'Cod județ (workspace)' },
  { name: 'area_value', sql: 't.area_value', type: 'Number', description: 'Suprafață (m²)' },
];

const D = DETAIL_MINZOOM;

/**
 * The slim columns of spec 4.1 "optimize-tiles" minus geom. uuid has no MVT value type: as text.
 * `layerIdFrom`: the layer-mixing feature views need layer_id at every zoom (the map picks
 * intravilan out of gis_administrativ by it from zoom 13); a status view holds one layer only.
 */
const featureFields = (layerIdFrom: number | undefined): TileField[] => [
  { name: 'id', sql: 't.id::text', type: 'String', description: 'Identificatorul obiectului (uuid)', minzoom: D },
  { name: 'layer_id', sql: 't.layer_id', type: 'String', description: 'Stratul de origine', minzoom: layerIdFrom },
  { name: 'siruta', sql: 't.siruta', type: 'Number', description: 'Cod SIRUTA al UAT' },
  { name: 'object_id', sql: 't.object_id', type: 'Number', description: 'OBJECTID în stratul de origine (pe orice zoom, id-ul elementului MVT)', minzoom: D },
  { name: 'cadastral_ref', sql: 't.cadastral_ref', type: 'String', description: 'Număr cadastral', minzoom: D },
  { name: 'area_value', sql: 't.area_value', type: 'Number', description: 'Suprafață (m²)', minzoom: D },
  { name: 'is_active', sql: 't.is_active', type: 'Boolean', description: 'Activ', minzoom: D },
];

const FEATURE_FIELDS = featureFields(undefined);

const STATUS_FIELDS: readonly TileField[] = [
  ...featureFields(D),
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

/** object_id as the MVT feature id: an integer, so it costs a varint, not a string. */
const OBJECT_ID_FEATURE_ID = { sql: 't.object_id', description: 'object_id (OBJECTID în stratul de origine)' };

export const TILE_LAYERS: readonly TileLayerSpec[] = TILE_SOURCES.map((s) => ({
  ...s,
  layer: s.name,
  fields: s.kind === 'uat' ? UAT_FIELDS : s.kind === 'status' ? STATUS_FIELDS : FEATURE_FIELDS,
  ...(s.kind === 'uat' ? {} : { featureId: OBJECT_ID_FEATURE_ID }),
  description: DESCRIPTIONS[s.name] ?? s.name,
}));

/** The attributes a tile of this source holds at zoom z. */
export function fieldsAtZoom(layer: TileLayerSpec, z: number): readonly TileField[] {
  return layer.fields.filter((f) => (f.minzoom ?? 0) <= z);
}

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

/**
 * A write that changes what tiles show. The domain function that makes the write reports it
 * (domain/tiles/versions.ts `tilesChanged`), so no caller can forget the bump.
 */
export type TileChange =
  /** A layer sync added, removed or re-marked features of the layer. */
  | { kind: 'layer'; layerId: string }
  /** Parcels were enriched (status flags, owners). */
  | { kind: 'enrichment' }
  /** UAT names, counties or boundaries changed (catalogue refresh or PATCH). */
  | { kind: 'uats' };

/** The sources whose tiles a change makes stale. */
export function tileSourcesChangedBy(change: TileChange): readonly string[] {
  switch (change.kind) {
    case 'layer':
      return tileSourcesForLayer(change.layerId);
    case 'enrichment':
      return ENRICHMENT_TILE_SOURCES;
    case 'uats':
      return tileSourcesForLayer('LIMITE_UAT');
  }
}
