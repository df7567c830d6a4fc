/**
 * What the parcel-sync pages need on the server: the same domain services and viewer rules as the
 * enrichment routes (api/routes/landregEnrichment.ts), on the server's store and a portal client on it.
 */
import type { SessionContext } from '../../../domain/auth/sessionContext';
import type { Store } from '../../../domain/db/store';
import { AppError, errors } from '../../../domain/errors';
import { enrichmentPortal } from '../../../domain/enrichment/portal';
import type { EnrichmentDeps } from '../../../domain/enrichment/service';
import { viewerOf as viewerRule, type Viewer } from '../../../domain/auth/viewer';
import { LandregClient } from '../../../domain/landreg/client';
import { uatOption as catalogueUatOption, type UatOption } from '../../../domain/landreg/catalogue';

export type { UatOption };

export function enrichmentDeps(store: Store): EnrichmentDeps {
  return { db: store.pool, portal: enrichmentPortal(new LandregClient({ db: store.pool })) };
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

/** One UAT of the catalogue with its local parcel count, for the page of `?siruta=`. */
export function uatOption(store: Store, siruta: number | null): Promise<UatOption | null> {
  return siruta ? catalogueUatOption(store.pool, siruta) : Promise.resolve(null);
}

// The domain services the pages call, re-exported here so route modules import server code only
// through `*.server.ts` (never bundled for the browser).
export { canSearchOwners, enrichOne, searchCadastral, searchOwner, viewEnrichment } from '../../../domain/enrichment/service';
export { findParcel } from '../../../domain/enrichment/store';
export { uatDashboard } from '../../../domain/enrichment/dashboard';
