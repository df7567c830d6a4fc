/**
 * What a caller may see of a parcel (spec 5.5 and 5.6, CONTRACT.md section 3). Two independent
 * rules: the basic panel (BASIC_PANEL_USERS / PANEL_BASIC_GLOBAL) shows only the cadastral
 * reference and the area; the `basic` enrichment scope nulls the personal keys of the enrichment.
 */
import type { EnrichmentScope } from './types';

/** Keys that are null under enrichment scope `basic` (CONTRACT.md section 3). */
export const PERSONAL_ENRICHMENT_KEYS = ['NR_CF', 'ADRESA', 'PROPRIETARI', 'PROPRIETARI_VECHI', 'SOLICITANT', 'DOC'] as const;

/**
 * Scope `full` sees everything. `basic` and `none` see the enrichment without personal keys: the
 * local store must not show more than the central API would (which answers 403 for `none`).
 * No claim at all (legacy-path users of an identity provider without the claim) counts as full,
 * since the legacy path predates the claim.
 */
export function personalDataHidden(scope: EnrichmentScope | null): boolean {
  return scope === 'basic' || scope === 'none';
}

/**
 * Personal data outside the enrichment (CF numbers of extracts, RGI applicants): hidden from the
 * basic panel as well as from the basic/none scopes.
 */
export function personalDataHiddenFor(viewer: { basicPanel: boolean; enrichmentScope: EnrichmentScope | null }): boolean {
  return viewer.basicPanel || personalDataHidden(viewer.enrichmentScope);
}

export function redactEnrichment(
  enrichment: Record<string, unknown> | null,
  scope: EnrichmentScope | null,
): Record<string, unknown> | null {
  if (!enrichment || !personalDataHidden(scope)) return enrichment;
  const out: Record<string, unknown> = { ...enrichment };
  for (const key of PERSONAL_ENRICHMENT_KEYS) if (key in out) out[key] = null;
  return out;
}
