/** The portal's layer catalog: 31 layers in four categories (spec 2.1). */

export const LAYER_PARCELS = 'TERENURI_ACTIVE';
export const LAYER_BUILDINGS = 'CLADIRI_ACTIVE';
export const LAYER_INTRAVILAN = 'LIMITE_INTRAV_DYNAMIC';
export const LAYER_UAT = 'LIMITE_UAT';
export const LAYER_STREETS = 'STRAZI';

export type LayerCategory = 'terenuri' | 'cladiri' | 'documentatii' | 'administrativ';
export type EsriGeometryType = 'esriGeometryPolygon' | 'esriGeometryPolyline' | 'esriGeometryPoint';

export interface FieldDef {
  name: string;
  type: 'esriFieldTypeOID' | 'esriFieldTypeInteger' | 'esriFieldTypeDouble' | 'esriFieldTypeString' | 'esriFieldTypeDate';
  alias: string;
  length?: number;
}

export interface LayerDef {
  id: string;
  name: string;
  category: LayerCategory;
  geometryType: EsriGeometryType;
  /** Layers the simulator fills with data; the others answer valid, empty queries. */
  hasData: boolean;
  fields: FieldDef[];
}

const f = (name: string, type: FieldDef['type'], alias: string, length?: number): FieldDef =>
  length ? { name, type, alias, length } : { name, type, alias };

const COMMON: FieldDef[] = [
  f('OBJECTID', 'esriFieldTypeOID', 'OBJECTID'),
  f('ADMIN_UNIT_ID', 'esriFieldTypeInteger', 'Cod SIRUTA UAT'),
  f('WORKSPACE_ID', 'esriFieldTypeInteger', 'Cod județ'),
  f('VALID_FROM', 'esriFieldTypeDate', 'Valabil de la'),
  f('LAST_UPDATED_DTM', 'esriFieldTypeDate', 'Ultima actualizare'),
];
const CADASTRAL: FieldDef[] = [
  f('NATIONAL_CADASTRAL_REFERENCE', 'esriFieldTypeString', 'Număr cadastral', 50),
  f('IMMOVABLE_ID', 'esriFieldTypeInteger', 'ID imobil'),
  f('AREA_VALUE', 'esriFieldTypeDouble', 'Suprafață'),
];
const PARCEL_FIELDS: FieldDef[] = [
  ...COMMON,
  ...CADASTRAL,
  f('NATIONAL_CADNR', 'esriFieldTypeInteger', 'Număr cadastral (numeric)'),
  f('INSPIRE_ID', 'esriFieldTypeString', 'Identificator INSPIRE', 80),
  f('IS_ACTIVE', 'esriFieldTypeInteger', 'Activ'),
];
const BUILDING_FIELDS: FieldDef[] = [
  ...COMMON,
  ...CADASTRAL,
  f('BUILDING_NO', 'esriFieldTypeString', 'Număr construcție', 10),
  f('IS_LEGAL', 'esriFieldTypeInteger', 'Construcție intabulată'),
];
const NAMED_FIELDS: FieldDef[] = [...COMMON, f('NAME', 'esriFieldTypeString', 'Denumire', 200), f('AREA_VALUE', 'esriFieldTypeDouble', 'Suprafață')];
const UAT_FIELDS: FieldDef[] = [...NAMED_FIELDS, f('COUNTY', 'esriFieldTypeString', 'Județ', 100)];
const STREET_FIELDS: FieldDef[] = [
  ...COMMON,
  f('STREET_TYPE', 'esriFieldTypeString', 'Tip arteră', 50),
  f('STREET_NAME', 'esriFieldTypeString', 'Denumire arteră', 200),
];

/** A layer: its id and name, and what differs from its category's usual (fields, polygons, no data). */
type Row = [id: string, name: string, differs?: Partial<Pick<LayerDef, 'fields' | 'geometryType' | 'hasData'>>];

/** One category's layers in catalogue order, with the category's usual fields. */
const category = (category: LayerCategory, fields: FieldDef[], rows: Row[]): LayerDef[] =>
  rows.map(([id, name, differs]) => ({ id, name, category, geometryType: 'esriGeometryPolygon', hasData: false, fields, ...differs }));

const WITH_DATA = { hasData: true };
const POINTS = { geometryType: 'esriGeometryPoint' } as const;
const LINES = { geometryType: 'esriGeometryPolyline' } as const;

export const LAYERS: readonly LayerDef[] = [
  ...category('terenuri', PARCEL_FIELDS, [
    [LAYER_PARCELS, 'Terenuri active', WITH_DATA],
    ['TERENURI_INACTIVE', 'Terenuri inactive'],
    ['TERENURI_ISTORIC', 'Terenuri - istoric'],
    ['TERENURI_IN_LUCRU', 'Terenuri în lucru'],
    ['TERENURI_SPORADIC', 'Terenuri - înregistrare sporadică'],
    ['TERENURI_SISTEMATIC', 'Terenuri - înregistrare sistematică'],
    ['TERENURI_DOMENIU_PUBLIC', 'Terenuri domeniul public'],
    ['TARLALE', 'Tarlale', { fields: NAMED_FIELDS }],
  ]),
  ...category('cladiri', BUILDING_FIELDS, [
    [LAYER_BUILDINGS, 'Clădiri active', WITH_DATA],
    ['CLADIRI_INACTIVE', 'Clădiri inactive'],
    ['CLADIRI_ISTORIC', 'Clădiri - istoric'],
    ['CLADIRI_IN_LUCRU', 'Clădiri în lucru'],
    ['CLADIRI_NEINTABULATE', 'Clădiri neintabulate'],
    ['UNITATI_INDIVIZE', 'Unități individuale'],
  ]),
  ...category('documentatii', NAMED_FIELDS, [
    ['DOCUMENTATII_RECEPTIONATE', 'Documentații recepționate'],
    ['DOCUMENTATII_IN_LUCRU', 'Documentații în lucru'],
    ['PLANURI_PARCELARE', 'Planuri parcelare'],
    ['SECTOARE_CADASTRALE', 'Sectoare cadastrale'],
    ['LUCRARI_SISTEMATICE', 'Lucrări de înregistrare sistematică'],
    ['PUNCTE_RETEA_GEODEZICA', 'Puncte rețea geodezică', POINTS],
    ['ORTOFOTO_INDEX', 'Index ortofotoplan'],
    ['PUG_ZONIFICARE', 'Zonificare PUG'],
  ]),
  ...category('administrativ', NAMED_FIELDS, [
    [LAYER_UAT, 'Limite UAT', { fields: UAT_FIELDS, hasData: true }],
    ['LIMITE_JUDETE', 'Limite județe'],
    [LAYER_INTRAVILAN, 'Limite intravilan', WITH_DATA],
    ['LIMITE_INTRAV_APROBAT', 'Limite intravilan aprobat (PUG)'],
    ['LOCALITATI', 'Localități', POINTS],
    [LAYER_STREETS, 'Străzi', { fields: STREET_FIELDS, hasData: true, ...LINES }],
    ['NUMERE_POSTALE', 'Numere poștale', POINTS],
    ['CAI_FERATE', 'Căi ferate', LINES],
    ['APE', 'Rețea hidrografică', LINES],
  ]),
];

const BY_ID = new Map(LAYERS.map((l) => [l.id, l]));

export function layerDef(id: string): LayerDef | undefined {
  return BY_ID.get(id);
}
