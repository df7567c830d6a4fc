/**
 * The four collections of /ogc (CONTRACT.md section 6) and the properties each feature carries
 * for a given viewer. Parcels carry the enrichment keys of CONTRACT.md section 3 the viewer may
 * see (domain/auth/viewer.ts decides, as for the map panel and the exports); the other layers
 * carry the common properties only.
 */
import { ENRICHMENT_KEYS } from '../enrichment/rules';
import { PERSONAL_ENRICHMENT_KEYS, type Viewer } from '../auth/viewer';

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

export type JsonType = 'string' | 'integer' | 'number' | 'array';

export interface OgcProperty {
  name: string;
  type: JsonType;
  format?: 'date-time' | 'uuid';
  title: string;
  /** SQL over `f` (gis_features), answering a value json_build_object can write. */
  expr: string;
}

const COMMON: OgcProperty[] = [
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
 * which cost more than the geometry on a 10,000-feature page. FOLOSINTE stays its array.
 */
function enrichmentProperty(key: string): OgcProperty {
  const type: JsonType = NUMBER_KEYS.has(key) ? 'number' : INTEGER_KEYS.has(key) ? 'integer' : key === 'FOLOSINTE' ? 'array' : 'string';
  return { name: key, type, title: key, expr: `f.enrichment->'${key}'` };
}

/**
 * What a viewer's features carry. The basic panel shows a parcel's cadastral reference and area
 * only (spec 5.6), so it gets the common properties; a viewer without personal data gets the
 * enrichment without the personal keys (they are absent, not null: the contract's "none of the
 * personal ones"); a full viewer gets every key.
 */
export function propertiesFor(collection: OgcCollection, viewer: Viewer): OgcProperty[] {
  if (!collection.enriched || viewer.basicPanel) return COMMON;
  const personal = new Set<string>(PERSONAL_ENRICHMENT_KEYS);
  // The enrichment's SIRUTA is the feature's own `siruta`; a second one would clash in any
  // case-insensitive format (GeoPackage, shapefile) as SIRUTA2.
  const keys = ENRICHMENT_KEYS.filter((k) => k !== 'SIRUTA' && (viewer.personalData || !personal.has(k)));
  return [...COMMON, ...keys.map(enrichmentProperty)];
}

/** The properties `items` filters on besides bbox and datetime (the queryables). */
export const QUERYABLES = ['siruta', 'cadastral_ref'] as const;
