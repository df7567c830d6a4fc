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

const L = (
  id: string,
  name: string,
  category: LayerCategory,
  fields: FieldDef[],
  geometryType: EsriGeometryType = 'esriGeometryPolygon',
  hasData = false,
): LayerDef => ({ id, name, category, geometryType, hasData, fields });

export const LAYERS: readonly LayerDef[] = [
  L(LAYER_PARCELS, 'Terenuri active', 'terenuri', PARCEL_FIELDS, 'esriGeometryPolygon', true),
  L('TERENURI_INACTIVE', 'Terenuri inactive', 'terenuri', PARCEL_FIELDS),
  L('TERENURI_ISTORIC', 'Terenuri - istoric', 'terenuri', PARCEL_FIELDS),
  L('TERENURI_IN_LUCRU', 'Terenuri în lucru', 'terenuri', PARCEL_FIELDS),
  L('TERENURI_SPORADIC', 'Terenuri - înregistrare sporadică', 'terenuri', PARCEL_FIELDS),
  L('TERENURI_SISTEMATIC', 'Terenuri - înregistrare sistematică', 'terenuri', PARCEL_FIELDS),
  L('TERENURI_DOMENIU_PUBLIC', 'Terenuri domeniul public', 'terenuri', PARCEL_FIELDS),
  L('TARLALE', 'Tarlale', 'terenuri', NAMED_FIELDS),
  L(LAYER_BUILDINGS, 'Clădiri active', 'cladiri', BUILDING_FIELDS, 'esriGeometryPolygon', true),
  L('CLADIRI_INACTIVE', 'Clădiri inactive', 'cladiri', BUILDING_FIELDS),
  L('CLADIRI_ISTORIC', 'Clădiri - istoric', 'cladiri', BUILDING_FIELDS),
  L('CLADIRI_IN_LUCRU', 'Clădiri în lucru', 'cladiri', BUILDING_FIELDS),
  L('CLADIRI_NEINTABULATE', 'Clădiri neintabulate', 'cladiri', BUILDING_FIELDS),
  L('UNITATI_INDIVIZE', 'Unități individuale', 'cladiri', BUILDING_FIELDS),
  L('DOCUMENTATII_RECEPTIONATE', 'Documentații recepționate', 'documentatii', NAMED_FIELDS),
  L('DOCUMENTATII_IN_LUCRU', 'Documentații în lucru', 'documentatii', NAMED_FIELDS),
  L('PLANURI_PARCELARE', 'Planuri parcelare', 'documentatii', NAMED_FIELDS),
  L('SECTOARE_CADASTRALE', 'Sectoare cadastrale', 'documentatii', NAMED_FIELDS),
  L('LUCRARI_SISTEMATICE', 'Lucrări de înregistrare sistematică', 'documentatii', NAMED_FIELDS),
  L('PUNCTE_RETEA_GEODEZICA', 'Puncte rețea geodezică', 'documentatii', NAMED_FIELDS, 'esriGeometryPoint'),
  L('ORTOFOTO_INDEX', 'Index ortofotoplan', 'documentatii', NAMED_FIELDS),
  L('PUG_ZONIFICARE', 'Zonificare PUG', 'documentatii', NAMED_FIELDS),
  L(LAYER_UAT, 'Limite UAT', 'administrativ', UAT_FIELDS, 'esriGeometryPolygon', true),
  L('LIMITE_JUDETE', 'Limite județe', 'administrativ', NAMED_FIELDS),
  L(LAYER_INTRAVILAN, 'Limite intravilan', 'administrativ', NAMED_FIELDS, 'esriGeometryPolygon', true),
  L('LIMITE_INTRAV_APROBAT', 'Limite intravilan aprobat (PUG)', 'administrativ', NAMED_FIELDS),
  L('LOCALITATI', 'Localități', 'administrativ', NAMED_FIELDS, 'esriGeometryPoint'),
  L(LAYER_STREETS, 'Străzi', 'administrativ', STREET_FIELDS, 'esriGeometryPolyline', true),
  L('NUMERE_POSTALE', 'Numere poștale', 'administrativ', NAMED_FIELDS, 'esriGeometryPoint'),
  L('CAI_FERATE', 'Căi ferate', 'administrativ', NAMED_FIELDS, 'esriGeometryPolyline'),
  L('APE', 'Rețea hidrografică', 'administrativ', NAMED_FIELDS, 'esriGeometryPolyline'),
];

const BY_ID = new Map(LAYERS.map((l) => [l.id, l]));

export function layerDef(id: string): LayerDef | undefined {
  return BY_ID.get(id);
}
