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

