/** In-memory shapes of the simulated portal's data for one UAT. */

export type AttrValue = string | number | null;

export interface SimFeature {
  objectId: number;
  /** Remote attribute names of spec 2.1 (OBJECTID, ADMIN_UNIT_ID, ...), plus layer extras. */
  attributes: Record<string, AttrValue>;
  /** Polygon rings as flat [x0, y0, x1, y1, ...] arrays, or polyline paths for line layers; null = null geometry. */
  parts: Float64Array[] | null;
}

export interface LayerData {
  /** Sorted by objectId. */
  features: SimFeature[];
  nextObjectId: number;
}

export interface StructuredAddress {
  streetType: { code: string; name: string };
  streetName: string;
  postalNumber: string;
  localityIdx: number;
  entrance?: string;
  floor?: string;
  unit?: string;
}

export interface UseCategory {
  code: string;
  name: string;
  area: number;
  intravilan: boolean;
}

export type ImmovableKind = 'urban' | 'agri' | 'nogeom';

export interface SimImmovable {
  immovablePk: number;
  kind: ImmovableKind;
  cadastralNumber: string;
  landbookNo: string;
  oldLandbookNo: string | null;
  topoNo: string | null;
  intravilan: boolean;
  measuredArea: number | null;
  legalArea: number | null;
  useCategories: UseCategory[];
  address: StructuredAddress | null;
  /** Used when there is no structured address (agricultural land, older records). */
  freeTextAddress: string | null;
  /** OBJECTID in TERENURI_ACTIVE, when the immovable has geometry. */
  objectId: number | null;
  buildingRefs: string[];
  /** Bumped by /__sim/mutate change: owners and documentation are re-derived from it. */
  revision: number;
  validFrom: number;
}

export interface UatData {
  siruta: number;
  workspaceId: number;
  layers: Map<string, LayerData>;
  immovables: SimImmovable[];
  immovableByPk: Map<number, SimImmovable>;
  nextImmovablePk: number;
  /** Unissued parcel rectangles (world rings) that /__sim/mutate add uses, so new parcels do not overlap. */
  spareParcels: Float64Array[];
  nextCadastralNumber: number;
  /** Measured generation time, for the bench and the README. */
  generatedMs: number;
}
