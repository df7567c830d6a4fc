/**
 * What the parcel-sync pages need on the server: the same domain services and viewer rules as the
 * enrichment routes (api/routes/landregEnrichment.ts), on the process's pool and portal client.
 */
import type { SessionContext } from '../../../api/auth/types';
import { getPool } from '../../../domain/db/pool';
import { AppError, errors } from '../../../domain/errors';
import { enrichmentPortal } from '../../../domain/enrichment/portal';
import type { EnrichmentDeps } from '../../../domain/enrichment/service';
import { viewerOf as viewerRule, type Viewer } from '../../../domain/auth/viewer';
import { getLandregClient } from '../../../domain/landreg/client';

export function enrichmentDeps(): EnrichmentDeps {
  return { db: getPool(), portal: enrichmentPortal(getLandregClient()) };
}

/** The one viewer rule (domain/auth/viewer.ts), as the API routes apply it. */
export function viewerOf(auth: SessionContext): Viewer {
  return viewerRule(auth);
}

/** Spec 5.9: what a central-API user is told when a page offers a legacy write. */
export const goneCentralApiMessage = (): string => errors.goneCentralApi().message;

/** The Romanian message of a failure, as every error panel shows it. */
export function failureMessage(err: unknown): string {
  if (err instanceof AppError) return err.message;
  return 'A apărut o eroare neașteptată.';
}

export interface UatOption {
  siruta: number;
  name: string;
  county: string | null;
  parcels: number;
}

/**
 * One UAT of the catalogue with its parcel count in the local store: what a page shows for the
 * UAT of `?siruta=` (the picker itself searches the whole catalogue in the browser).
 */
export async function uatOption(siruta: number | null): Promise<UatOption | null> {
  if (!siruta) return null;
  const r = await getPool().query<UatOption>(
    `SELECT u.siruta, u.name, u.county,
            (SELECT count(*)::int FROM gis_features f WHERE f.siruta = u.siruta AND f.layer_id = 'TERENURI_ACTIVE') AS parcels
       FROM gis_uats u
      WHERE u.siruta = $1`,
    [siruta],
  );
  return r.rows[0] ?? null;
}

/** UATs with parcels in the local store. */
export async function uatsWithParcels(): Promise<UatOption[]> {
  const r = await getPool().query<UatOption>(
    `SELECT u.siruta, u.name, u.county, c.n AS parcels
       FROM (SELECT siruta, count(*)::int AS n FROM gis_features WHERE layer_id = 'TERENURI_ACTIVE' GROUP BY siruta) c
       JOIN gis_uats u USING (siruta)
      ORDER BY u.name`,
  );
  return r.rows;
}

// The domain services the pages call, re-exported here so route modules import server code only
// through `*.server.ts` (never bundled for the browser).
export { canSearchOwners, enrichOne, searchCadastral, searchOwner, viewEnrichment } from '../../../domain/enrichment/service';
export { findParcel } from '../../../domain/enrichment/store';
export { uatDashboard } from '../../../domain/enrichment/dashboard';
