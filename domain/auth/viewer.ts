/**
 * The viewer rule (spec 2.4, 5.5, 5.6; CONTRACT.md section 3): what a caller may see of personal
 * data, derived ONCE from the session. Every route, loader, export and debug answer that can carry
 * owner names, CF numbers, addresses, applicants or documents asks this module, never the session
 * fields directly, so a new route cannot apply a different rule.
 *
 * - basic panel (BASIC_PANEL_USERS / PANEL_BASIC_GLOBAL): cadastral reference and area only;
 * - enrichment scope `full`: everything;
 * - scope `basic`, `none`, or no claim at all: no personal fields. An absent claim is treated as
 *   the most restrictive answer: a missing claim must never widen access.
 *
 * Pure: no I/O, no import outside `domain/`.
 */

export type EnrichmentScope = 'full' | 'basic' | 'none';

/**
 * The enrichment keys that are personal data (CONTRACT.md section 3: null under scope `basic`;
 * section 6: `NR_CF_VECHI` is personal like `NR_CF`, it opens the same land book). The one list:
 * routes, exports, tiles, OGC items and pages all read it.
 */
export const PERSONAL_ENRICHMENT_KEYS = ['NR_CF', 'NR_CF_VECHI', 'ADRESA', 'PROPRIETARI', 'PROPRIETARI_VECHI', 'SOLICITANT', 'DOC'] as const;
export type PersonalEnrichmentKey = (typeof PERSONAL_ENRICHMENT_KEYS)[number];

/** The parts of a session the rule reads (api/auth/types.ts SessionContext has them all). */
export interface ViewerSource {
  basicPanel: boolean;
  enrichmentScope: EnrichmentScope | null;
  isAdmin?: boolean;
}

/** What the caller may see. Build it with `viewerOf`; never by hand outside tests. */
export interface Viewer {
  /** Basic panel: only the cadastral reference and the area of a parcel (spec 5.6). */
  readonly basicPanel: boolean;
  readonly enrichmentScope: EnrichmentScope | null;
  /** Personal fields (PERSONAL_ENRICHMENT_KEYS, owner names anywhere) may be shown. */
  readonly personalData: boolean;
  readonly isAdmin: boolean;
}

/** True when the scope alone hides personal data: everything but an explicit `full`. */
export function personalDataHidden(scope: EnrichmentScope | null | undefined): boolean {
  return scope !== 'full';
}

/**
 * The one derivation. No session (an anonymous or unknown caller) gets the most restricted
 * viewer, so a route that forgets its guard still leaks nothing.
 */
export function viewerOf(session: ViewerSource | null | undefined): Viewer {
  if (!session) return { basicPanel: true, enrichmentScope: null, personalData: false, isAdmin: false };
  const scope = session.enrichmentScope ?? null;
  return {
    basicPanel: session.basicPanel,
    enrichmentScope: scope,
    personalData: !session.basicPanel && !personalDataHidden(scope),
    isAdmin: session.isAdmin ?? false,
  };
}

/** Whether personal data must be withheld from this caller (exports and jobs carry the flag). */
export function hidesPersonalData(session: ViewerSource | null | undefined): boolean {
  return !viewerOf(session).personalData;
}

/** The enrichment with its personal keys nulled unless the viewer may see them; never mutates. */
export function redactEnrichment(enrichment: Record<string, unknown> | null, viewer: Viewer): Record<string, unknown> | null {
  if (!enrichment || viewer.personalData) return enrichment;
  const out: Record<string, unknown> = { ...enrichment };
  for (const key of PERSONAL_ENRICHMENT_KEYS) if (key in out) out[key] = null;
  return out;
}

/**
 * The portal's own attributes of a feature that are personal: `LANDBOOK_NO`, the land-book (CF)
 * number of an immovable, which the import of parcels without geometry keeps as the portal sent it.
 */
export const PERSONAL_ATTRIBUTE_KEYS = ['LANDBOOK_NO'] as const;

/** A feature's stored portal attributes as this viewer may see them: personal ones nulled. */
export function redactAttributes(attributes: Record<string, unknown> | null, viewer: Viewer): Record<string, unknown> | null {
  if (!attributes || viewer.personalData) return attributes;
  const out: Record<string, unknown> = { ...attributes };
  for (const key of PERSONAL_ATTRIBUTE_KEYS) if (key in out) out[key] = null;
  return out;
}

/** Keys whose values are personal wherever they sit in a free-form record (debug answers). */
const PERSONAL_KEY_SET: ReadonlySet<string> = new Set<string>([...PERSONAL_ENRICHMENT_KEYS, ...PERSONAL_ATTRIBUTE_KEYS, 'PROPRIETARI_ACTUALI', 'enrichment']);

/**
 * A free-form row (store rows of debug answers) with its personal parts removed for a viewer
 * without the right: an `enrichment` or `attributes` object is redacted, personal keys at the top are nulled.
 */
export function redactRow(row: Record<string, unknown>, viewer: Viewer): Record<string, unknown> {
  if (viewer.personalData) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === 'enrichment') out[k] = v && typeof v === 'object' ? redactEnrichment(v as Record<string, unknown>, viewer) : v;
    else if (k === 'attributes') out[k] = v && typeof v === 'object' ? redactAttributes(v as Record<string, unknown>, viewer) : v;
    else out[k] = PERSONAL_KEY_SET.has(k) ? null : v;
  }
  return out;
}
