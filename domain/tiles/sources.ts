/**
 * The tile sources as data, one record each, as Martin's configuration lists its sources: the
 * source name (also the MVT layer name, as Martin names layers, so the proxy mode and the direct
 * mode give the map the same layers), the view it reads, its zoom range, its attribute columns
 * with their TileJSON types and the zoom from which each is in the tile, the MVT feature id, and
 * which writes make its tiles stale. Everything else is derived from these records: the tile
 * query (domain/tiles/mvt.ts), TileJSON and the catalog (tilejson.ts), the staleness after a
 * write (`tileSourcesChangedBy`, used by versions.ts `tilesChanged`). Adding a source is adding a
 * record (and its view in domain/store/views.ts); nothing else may be served.
 *
 * Feature and status tiles carry the full slim column list of spec 4.1 from DETAIL_MINZOOM (16,
 * where the map starts drawing cadastral labels and a parcel is big enough to read) and only what
 * the map draws below it: the status flags that colour it, `siruta`, `layer_id` where a source
 * mixes layers, and the MVT feature id = object_id. (siruta, object_id[, layer_id]) is the
 * feature's key (unique in gis_features), which the feature route takes, so a click at any zoom
 * identifies its feature without the 36-character uuid that made up ~40% of a low-zoom tile
 * (docs/bench/tiles.md).
 */
import { TILE_GRID_SCHEMA, TILE_SCHEMA, UAT_ZOOM_LEVELS } from '../store/views';
import { DETAIL_MINZOOM, checkSourceThreshold } from './density';

export type FieldType = 'String' | 'Number' | 'Boolean';

export interface TileField {
  name: string;
  /** SQL expression over alias `t`. */
  sql: string;
  type: FieldType;
  description: string;
  /** Lowest zoom whose tiles hold this attribute (absent: every zoom of the source). */
  minzoom?: number;
}

/**
 * Which writes make a source's tiles stale (the kinds of TileChange). `layers`: syncs of these
 * store layers; `otherLayers`: a sync of any layer no record names in its `layers`.
 */
export interface StaleAfter {
  layers?: readonly string[];
  otherLayers?: boolean;
  enrichment?: boolean;
  uats?: boolean;
}

export interface TileSourceRecord {
  /** Source name of the `/tiles/<source>` route (spec 4.1) and MVT layer name inside the tile. */
  name: string;
  /** Schema-qualified view it reads (geom in EPSG:3857, docs/store.md). */
  relation: string;
  /**
   * The same view with what the store keeps ready for tiles (density.ts): `geom_z14` and
   * `geom_z16`, each feature's tile geometry at GRID_ZOOMS, read by those zooms' tiles, and `tile_minzoom`,
   * its lowest zoom, read by the generalised tiles wherever the source keeps the common rule (feature and status sources).
   */
  gridRelation?: string;
  /**
   * `uat`: the view holds geometry simplified for its zoom band, rendered as it is. `feature`,
   * `status`: generalised below DETAIL_MINZOOM (mvt.ts); `status` views add the status flags.
   */
  kind: 'uat' | 'feature' | 'status';
  minzoom: number;
  maxzoom: number;
  /** Every attribute the layer can hold, in column order. */
  fields: readonly TileField[];
  /**
   * Column used as the MVT feature id (ST_AsMVT feature_id_name), on every zoom; not repeated as
   * a property by ST_AsMVT, so a z16+ tile also lists object_id among the fields.
   */
  featureId?: { sql: string; description: string };
  /**
   * Feature and status sources: the density rule's threshold in display pixels² at a zoom where
   * this source thins more than keepAreaPx2 (density.ts; only zooms where the rule is evaluated
   * per row, checked by checkSourceThreshold).
   */
  keepAreaPx2?: Readonly<Record<number, number>>;
  description: string;
  staleAfter: StaleAfter;
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

/** object_id as the MVT feature id: an integer, so it costs a varint, not a string. */
const OBJECT_ID_FEATURE_ID = { sql: 't.object_id', description: 'object_id (OBJECTID în stratul de origine)' };

const PARCELS = 'TERENURI_ACTIVE';
const BUILDINGS = 'CLADIRI_ACTIVE';
const UAT_LAYER = 'LIMITE_UAT';

const UAT_DESCRIPTIONS: Record<string, string> = {
  gis_uats_z0: 'Limite UAT, simplificate pentru zoom 0–4',
  gis_uats_z5: 'Limite UAT, simplificate pentru zoom 5–7',
  gis_uats_z8: 'Limite UAT, simplificate pentru zoom 8–11',
};

/** UAT boundaries: their names and counties come from the catalogue, their outlines from LIMITE_UAT. */
const uat = (view: string, minzoom: number, maxzoom: number, description: string): TileSourceRecord => ({
  name: view,
  relation: `${TILE_SCHEMA}.${view}`,
  kind: 'uat',
  minzoom,
  maxzoom,
  fields: UAT_FIELDS,
  description,
  staleAfter: { layers: [UAT_LAYER], uats: true },
});

/**
 * Buildings at z14, where the map starts drawing them (2–3 px wide for most): a building under
 * 16 px² (4 × 4 px, 365 m² in EPSG:3857) is sampled instead of one under 4 px² as parcels are.
 * The building layer keeps its texture and the proportions of its colours, and the densest z14
 * building tile of the bench city holds 1,589 buildings instead of 3,532, each of which paid two
 * parent-parcel lookups (docs/bench/tiles.md).
 */
const BUILDING_THRESHOLDS = { 14: 16 } as const;

const feature = (name: string, kind: 'feature' | 'status', description: string, staleAfter: StaleAfter, keepAreaPx2?: Readonly<Record<number, number>>): TileSourceRecord => ({
  name,
  relation: `${TILE_SCHEMA}.${name}`,
  gridRelation: `${TILE_GRID_SCHEMA}.${name}`,
  kind,
  minzoom: 10,
  maxzoom: 22,
  fields: kind === 'status' ? STATUS_FIELDS : FEATURE_FIELDS,
  featureId: OBJECT_ID_FEATURE_ID,
  ...(keepAreaPx2 ? { keepAreaPx2 } : {}),
  description,
  staleAfter,
});

/** Every tile source of spec 4.1; nothing else may be served. */
export const TILE_SOURCES: readonly TileSourceRecord[] = [
  ...UAT_ZOOM_LEVELS.map((z) => uat(z.view, z.minzoom, z.maxzoom, UAT_DESCRIPTIONS[z.view])),
  uat('gis_uats_z12', 12, 22, 'Limite UAT, geometrie completă'),
  feature('gis_features', 'feature', 'Toate obiectele cu geometrie', { layers: [PARCELS, BUILDINGS], otherLayers: true }),
  feature('gis_terenuri', 'feature', 'Parcele (TERENURI_ACTIVE)', { layers: [PARCELS] }),
  feature('gis_cladiri', 'feature', 'Clădiri (CLADIRI_ACTIVE)', { layers: [BUILDINGS] }, BUILDING_THRESHOLDS),
  // Other catalogue layers land here by their category, which the sync does not report: any
  // layer no source names makes both stale.
  feature('gis_administrativ', 'feature', 'Straturi administrative', { otherLayers: true }),
  feature('gis_documentatii', 'feature', 'Documentații', { otherLayers: true }),
  feature('gis_terenuri_status', 'status', 'Parcele cu starea îmbogățirii', { layers: [PARCELS], enrichment: true }),
  // build_legal comes from the parent parcel: parcels and their enrichment make it stale too.
  feature('gis_cladiri_status', 'status', 'Clădiri cu starea actelor', { layers: [PARCELS, BUILDINGS], enrichment: true }, BUILDING_THRESHOLDS),
];

for (const s of TILE_SOURCES) for (const [z, keep] of Object.entries(s.keepAreaPx2 ?? {})) checkSourceThreshold(s.name, Number(z), keep);

/** The attributes a tile of this source holds at zoom z. */
export function fieldsAtZoom(source: TileSourceRecord, z: number): readonly TileField[] {
  return source.fields.filter((f) => (f.minzoom ?? 0) <= z);
}

const byName = new Map(TILE_SOURCES.map((s) => [s.name, s]));

export function tileSource(name: string): TileSourceRecord | undefined {
  return byName.get(name);
}

export const TILE_SOURCE_NAMES: readonly string[] = TILE_SOURCES.map((s) => s.name);

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

/** Layers some record names: a sync of any other layer is an "other layer" one. */
const NAMED_LAYERS = new Set(TILE_SOURCES.flatMap((s) => s.staleAfter.layers ?? []));

function staleBy(s: StaleAfter, change: TileChange): boolean {
  switch (change.kind) {
    case 'layer':
      return (s.layers ?? []).includes(change.layerId) || (s.otherLayers === true && !NAMED_LAYERS.has(change.layerId));
    case 'enrichment':
      return s.enrichment === true;
    case 'uats':
      return s.uats === true;
  }
}

/** The sources whose tiles a change makes stale, from the records' `staleAfter`. */
export function tileSourcesChangedBy(change: TileChange): readonly string[] {
  return TILE_SOURCES.filter((s) => staleBy(s.staleAfter, change)).map((s) => s.name);
}
