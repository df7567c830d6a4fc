/**
 * What the enrichment jobs take and answer (workflows/enrichParcels.ts, importNoGeometry.ts):
 * shared by the workflows and their starters (domain/jobWorkflows.ts).
 */
import type { EnrichCursor } from './store';

export interface EnrichParcelsInput {
  siruta: number;
  /** Enrich every parcel, fresh or not. */
  force?: boolean;
  batchSize?: number;
  /** Carried over continue-as-new. */
  resume?: { cursor: EnrichCursor | null; totals: EnrichTotals; total: number };
}

export interface EnrichTotals {
  done: number;
  enriched: number;
  notFound: number;
  portalCalls: number;
  batches: number;
}

export interface EnrichParcelsResult extends EnrichTotals {
  siruta: number;
  total: number;
}

export interface ImportNoGeometryInput {
  siruta: number;
  workspacePk?: number | null;
}

/** What the no-geometry scan counts (spec 4.4 no-geom-scan). */
export interface NoGeomScan {
  siruta: number;
  workspacePk: number;
  /** Immovables of the UAT on the portal's list. */
  totalImmovables: number;
  /** Features of the remote parcel layer in the UAT (its count). */
  withGeometry: number;
  /** Immovables matched to no parcel of the layer, by id or by cadastral number. */
  withoutGeometry: number;
  remoteCladiriCount: number;
  matchedByRef: number;
  matchedById: number;
  scannedAt: string;
}

/** What the no-geometry import answers (the importNoGeometry job's result). */
export interface NoGeomImport extends NoGeomScan {
  imported: number;
  deleted: number;
}
