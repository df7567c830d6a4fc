/**
 * What the parcel-sync pages need on the server: the enrichment area's application service
 * (domain/enrichment/service.ts), the one the enrichment routes call, with the viewer rule it
 * applies.
 */
import { AppError, errors } from '../../../domain/errors';
import type { LandregService, UatOption } from '../../../domain/landreg/service';

export type { UatOption };

/** Spec 5.9: what a central-API user is told when a page offers a legacy write. */
export const goneCentralApiMessage = (): string => errors.goneCentralApi().message;

/**
 * The Romanian message of a failure, as every error panel shows it; a refusal past a cap says
 * when to try again (its Retry-After).
 */
export function failureMessage(err: unknown): string {
  if (err instanceof AppError && err.status === 429) {
    const seconds = Number(err.headers?.['Retry-After']) || 5;
    return `Prea multe cereri în acest moment; reîncercați în ${seconds} s.`;
  }
  if (err instanceof AppError) return err.message;
  return 'A apărut o eroare neașteptată.';
}

/** One UAT of the catalogue with its local parcel count, for the page of `?siruta=`. */
export function uatOption(landreg: LandregService, siruta: number | null): Promise<UatOption | null> {
  return siruta ? landreg.uatOption(siruta) : Promise.resolve(null);
}

// The service functions the pages call, re-exported here so route modules import server code only
// through `*.server.ts` (never bundled for the browser).
export { canSearchOwners, enrichOne, enrichmentDeps, searchCadastral, searchOwner, storedParcel, uatDashboard } from '../../../domain/enrichment/service';
export { viewerOf } from '../../../domain/auth/rules';
