/**
 * GET /api/geoportal/cf-status (spec 4.1): is there a CF extract for this parcel, in which state,
 * until when is it valid, and where to download it. The extract is read through the CF area
 * (domain/cfportal/lookups.ts), which owns ordering and the download route
 * `/api/cfportal/download?id=` (CONTRACT.md section 4).
 */
import type { Db } from '../db/pool';
import { newestExtract } from '../cfportal/lookups';
import { uiState, type CfUiState } from './rules';

export interface CfStatus {
  exists: boolean;
  status?: string;
  /** UI state of CONTRACT.md section 3: processing, valid until expiresAt, expired (or failed). */
  state?: CfUiState;
  expiresAt?: string;
  downloadUrl?: string;
  extractId?: string;
  version?: number;
}

/**
 * The newest extract of the parcel (highest version, then newest), cancelled orders ignored.
 * Cadastral numbers repeat across UATs (spec 2.1): with `siruta` the lookup is exact; without it
 * (the spec's older query shape) any UAT's extract of that number answers.
 */
export async function cfStatus(nrCad: string, siruta: number | undefined, db: Db): Promise<CfStatus> {
  const row = await newestExtract(db, nrCad, siruta);
  if (!row) return { exists: false };
  const state = uiState(row.status, row.expiresAt);
  return {
    exists: true,
    status: row.status,
    state,
    extractId: row.id,
    version: row.version,
    ...(row.expiresAt ? { expiresAt: row.expiresAt.toISOString() } : {}),
    ...(row.status === 'completed' && row.hasFile ? { downloadUrl: `/api/cfportal/download?id=${row.id}` } : {}),
  };
}
