/**
 * The four collections of /ogc (CONTRACT.md section 6) and the properties each feature carries
 * for a given viewer. Parcels carry the enrichment keys of CONTRACT.md section 3 the viewer may
 * see (domain/auth/viewer.ts decides, as for the map panel and the exports); the other layers
 * carry the common properties only.
 */
import { ENRICHMENT_KEYS } from '../enrichment/rules';
import { PERSONAL_ENRICHMENT_KEYS, type Viewer } from '../auth/rules';

export interface OgcCollection {
  id: string;
  layerId: string;
  /** Shown in QGIS's layer list: Romanian, like the rest of the UI. */
  title: string;
  description: string;
  enriched: boolean;
}

export const OGC_COLLECTIONS: readonly OgcCollection[] = [
  {
    id: 'parcels',
    layerId: 'TERENURI_ACTIVE',
    title: 'Parcele',
    description: 'Parcelele (imobilele) active din eTerra, cu numărul cadastral, suprafața și datele de îmbogățire pe care le puteți vedea.',
    enriched: true,
  },
  {
    id: 'buildings',
    layerId: 'CLADIRI_ACTIVE',
    title: 'Clădiri',
    description: 'Clădirile active, cu numărul cadastral (parcela-C1, C2 …) și suprafața.',
    enriched: false,
  },
  {
    id: 'intravilan',
    layerId: 'LIMITE_INTRAV_DYNAMIC',
    title: 'Limite intravilan',
    description: 'Limitele intravilanului fiecărui UAT.',
    enriched: false,
  },
  {
    id: 'uat-boundaries',
    layerId: 'LIMITE_UAT',
    title: 'Limite UAT',
    description: 'Limita administrativă a fiecărui UAT sincronizat.',
    enriched: false,
  },
];

export function collectionById(id: string): OgcCollection | undefined {
  return OGC_COLLECTIONS.find((c) => c.id === id);
}

/** A collection limited to one UAT: `parcels-54975` is `parcels` with `siruta = 54975`. */
export interface UatCollection extends OgcCollection {
  uat?: number;
}

/**
 * A collection by its id, or one UAT's share of it (`<collection>-<siruta>`, not listed in
 * /ogc/collections): QGIS before 3.28 filters a layer on its side only, so a project layer that
 * should read one UAT names that UAT's collection, whose item pages the server limits to it.
 */
export function scopedCollectionById(id: string): UatCollection | undefined {
  const whole = collectionById(id);
  if (whole) return whole;
  const m = /^(.+)-([1-9]\d{0,8})$/.exec(id);
  const base = m ? collectionById(m[1]) : undefined;
  if (!m || !base) return undefined;
  const uat = Number(m[2]);
  return { ...base, id, title: `${base.title} · SIRUTA ${uat}`, uat };
}

export type JsonType = 'string' | 'integer' | 'number' | 'array';

export interface OgcProperty {
  name: string;
  type: JsonType;
  format?: 'date-time' | 'uuid';
  title: string;
  /** SQL over `f` (gis_features), answering a value json_build_object can write. */
  expr: string;
}

/** The properties of every feature, built at read time (the sync stamp changes at every write). */
export const COMMON_PROPERTIES: OgcProperty[] = [
  { name: 'id', type: 'string', format: 'uuid', title: 'Identificator', expr: 'f.id' },
  { name: 'siruta', type: 'integer', title: 'Cod SIRUTA', expr: 'f.siruta' },
  { name: 'uat_name', type: 'string', title: 'UAT', expr: '(SELECT u.name FROM gis_uats u WHERE u.siruta = f.siruta)' },
  { name: 'cadastral_ref', type: 'string', title: 'Număr cadastral', expr: 'f.cadastral_ref' },
  { name: 'object_id', type: 'integer', title: 'OBJECTID eTerra', expr: 'f.object_id' },
  { name: 'area', type: 'number', title: 'Suprafață GIS (m²)', expr: 'f.area_value' },
  { name: 'updated_at', type: 'string', format: 'date-time', title: 'Sincronizat la', expr: 'f.updated_at' },
];

const NUMBER_KEYS = new Set(['SUPRAFATA', 'SUPRAFATA_MASURATA', 'SUPRAFATA_ACTE']);
const INTEGER_KEYS = new Set(['IMMOVABLE_ID', 'WORKSPACE_ID', 'NR_PROPRIETARI', 'HAS_BUILDING', 'BUILD_LEGAL']);

/**
 * One enrichment key as a property, its JSON value passed through as the enrichment writer typed
 * it (domain/enrichment/rules.ts `Enrichment`: numbers, 0/1 flags, text): no per-value parsing,
 * which cost more than the geometry on a 10,000-feature page. FOLOSINTE stays its array. `row`
 * names the gis_features row: `f` in a query, `NEW` in the trigger.
 */
function enrichmentProperty(key: string, row = 'f'): OgcProperty {
  const type: JsonType = NUMBER_KEYS.has(key) ? 'number' : INTEGER_KEYS.has(key) ? 'integer' : key === 'FOLOSINTE' ? 'array' : 'string';
  return { name: key, type, title: key, expr: `${row}.enrichment->'${key}'` };
}

/**
 * The viewer classes of the rule below: `common` (other layers, or the basic panel), `restricted`
 * (the enrichment without the personal keys) and `full` (every key).
 */
export type PropertyClass = 'common' | 'restricted' | 'full';
type EnrichedClass = Exclude<PropertyClass, 'common'>;

/**
 * Which class a viewer's features are: the basic panel shows a parcel's cadastral reference and
 * area only (spec 5.6), so it gets the common properties; a viewer without personal data gets the
 * enrichment without the personal keys (they are absent, not null: the contract's "none of the
 * personal ones"); a full viewer gets every key.
 */
export function propertyClass(collection: OgcCollection, viewer: Viewer): PropertyClass {
  if (!collection.enriched || viewer.basicPanel) return 'common';
  return viewer.personalData ? 'full' : 'restricted';
}

function enrichmentProperties(cls: EnrichedClass, row = 'f'): OgcProperty[] {
  const personal = new Set<string>(PERSONAL_ENRICHMENT_KEYS);
  // The enrichment's SIRUTA is the feature's own `siruta`; a second one would clash in any
  // case-insensitive format (GeoPackage, shapefile) as SIRUTA2.
  return ENRICHMENT_KEYS.filter((k) => k !== 'SIRUTA' && (cls === 'full' || !personal.has(k))).map((k) => enrichmentProperty(k, row));
}

/** What a viewer's features carry (propertyClass), in the order of the feature schema. */
export function propertiesFor(collection: OgcCollection, viewer: Viewer): OgcProperty[] {
  const cls = propertyClass(collection, viewer);
  return cls === 'common' ? COMMON_PROPERTIES : [...COMMON_PROPERTIES, ...enrichmentProperties(cls)];
}

/**
 * Each feature keeps its enrichment properties ready as JSON text, one column per class, written
 * at write time by the trigger of domain/store/views.ts (ogcPropertiesTriggerSql): a page then
 * copies text instead of building 24 members per feature (three quarters of a page's statement).
 * The text is the members of a JSON object without its braces, as json_build_object writes them.
 */
export const STORED_PROPERTIES_COLUMN: Record<EnrichedClass, string> = {
  full: 'ogc_properties_full',
  restricted: 'ogc_properties_restricted',
};

/** The members text of a class over `row`'s enrichment (NULL enrichment: every key null). */
export function enrichmentMembersSql(cls: EnrichedClass, row: string): string {
  const obj = `json_build_object(${enrichmentProperties(cls, row)
    .map((p) => `'${p.name}', ${p.expr}`)
    .join(', ')})::text`;
  return `left(substr(${obj}, 2), -1)`;
}

/** The layers whose features carry enrichment properties (the only ones the trigger fills). */
export const ENRICHED_LAYER_IDS = OGC_COLLECTIONS.filter((c) => c.enriched).map((c) => c.layerId);

/** The properties `items` filters on besides bbox and datetime (the queryables). */
export const QUERYABLES = ['siruta', 'cadastral_ref'] as const;
