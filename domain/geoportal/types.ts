/** Shapes of the geoportal routes (CONTRACT.md section 4) as the domain produces them. */
/** Who asks: the viewer rule of domain/auth/viewer.ts decides what an answer may contain. */
export type { EnrichmentScope, Viewer } from '../auth/rules';

/** [minLon, minLat, maxLon, maxLat] in WGS84. */
export type Bbox = [number, number, number, number];

export type SearchKind = 'uat' | 'parcel' | 'owner';

export interface SearchResult {
  kind: SearchKind;
  label: string;
  siruta: number;
  uatName: string | null;
  county: string | null;
  featureId?: string;
  /** Parcel and owner hits: with siruta, the key the tiles carry (docs/geoportal.md "Parcel identity"). */
  objectId?: number;
  cadastralRef?: string;
  ownerName?: string;
  bbox?: Bbox;
  /** UAT hits: what `bbox` is the box of (the boundary, else its parcels, else its county). */
  bboxOf?: 'uat' | 'parcels' | 'county';
  /** UAT hits: whether the store holds any parcel of the UAT (false: never synced). */
  synced?: boolean;
}

export interface GeoJsonGeometry {
  type: string;
  coordinates?: unknown;
  geometries?: unknown;
}

export interface FeatureView {
  id: string;
  layerId: string;
  siruta: number;
  uatName: string | null;
  objectId: number;
  cadastralRef: string | null;
  areaValue: number | null;
  isActive: boolean;
  geometrySource: string | null;
  attributes: Record<string, unknown> | null;
  enrichment: Record<string, unknown> | null;
  enrichedAt: string | null;
  geometry: GeoJsonGeometry | null;
}

export interface RestrictedFeatureView {
  cadastralRef: string | null;
  areaValue: number | null;
  restricted: true;
}

export interface BoundaryItem {
  id: string;
  siruta: number;
  uatName: string | null;
  cadastralRef: string | null;
}
