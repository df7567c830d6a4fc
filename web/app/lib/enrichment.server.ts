/**
 * What the parcel-sync pages need on the server besides the enrichment's service (the load
 * context's `services.enrichment`, the object the enrichment routes call): the viewer rule it
 * applies, the error panels' messages and the page's UAT.
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

export { canSearchOwners, ownerNameProblem } from '../../../domain/enrichment/rules';
export { viewerOf } from '../../../domain/auth/rules';
