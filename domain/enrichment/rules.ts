/**
 * The enrichment rules of spec 2.4 and CONTRACT.md section 3, as pure functions over the portal's
 * answers: owners from the ownership node tree, the address, the areas, the use categories, the
 * intravilan flag, the `basic` scope redaction and the one diacritic-insensitive name
 * normalisation. No I/O here: the operations (./enrich.ts) fetch, these decide.
 */
import type { Viewer } from '../auth/rules';
import { foldName } from '../text/fold';
import type {
  PortalAddress,
  PortalDocumentation,
  PortalImmovableDetails,
  PortalOwnershipNode,
  PortalUseCategory,
} from './portalTypes';

/** Every key of CONTRACT.md section 3, in the contract's order; a parcel has all of them. */
export const ENRICHMENT_KEYS = [
  'NR_CAD', 'NR_CF', 'NR_CF_VECHI', 'NR_TOPO', 'SIRUTA', 'UAT', 'JUDET', 'IMMOVABLE_ID', 'WORKSPACE_ID',
  'TIP_IMOBIL', 'SUPRAFATA', 'SUPRAFATA_MASURATA', 'SUPRAFATA_ACTE', 'INTRAVILAN', 'CATEGORIE', 'FOLOSINTE',
  'ADRESA', 'PROPRIETARI', 'PROPRIETARI_VECHI', 'NR_PROPRIETARI', 'SOLICITANT', 'HAS_BUILDING', 'BUILD_LEGAL',
  'DOC', 'DATA_SURSA', 'ENRICHED_AT',
] as const;

export type EnrichmentKey = (typeof ENRICHMENT_KEYS)[number];
export type Intravilan = 'DA' | 'NU' | 'MIXT';

export interface Folosinta {
  categorie: string;
  suprafata: number | null;
  intravilan: 'DA' | 'NU' | null;
}

export interface Enrichment {
  NR_CAD: string | null;
  NR_CF: string | null;
  NR_CF_VECHI: string | null;
  NR_TOPO: string | null;
  SIRUTA: number | null;
  UAT: string | null;
  JUDET: string | null;
  IMMOVABLE_ID: number | null;
  WORKSPACE_ID: number | null;
  TIP_IMOBIL: string | null;
  SUPRAFATA: number | null;
  SUPRAFATA_MASURATA: number | null;
  SUPRAFATA_ACTE: number | null;
  INTRAVILAN: Intravilan | null;
  CATEGORIE: string | null;
  FOLOSINTE: Folosinta[] | null;
  ADRESA: string | null;
  PROPRIETARI: string | null;
  PROPRIETARI_VECHI: string | null;
  NR_PROPRIETARI: number | null;
  SOLICITANT: string | null;
  HAS_BUILDING: 0 | 1 | null;
  BUILD_LEGAL: 0 | 1 | null;
  DOC: string | null;
  DATA_SURSA: string | null;
  ENRICHED_AT: string | null;
}

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

/** Search tokens of a typed name: normalised words, so "stefan popescu" matches "POPESCU ŞTEFAN". */
export function nameTokens(s: string): string[] {
  return foldName(s).split(' ').filter(Boolean);
}

// ---------------------------------------------------------------------------------------------
// Owners (spec 2.4 rule 1)
// ---------------------------------------------------------------------------------------------

export const NODE_STATUS_RADIATED = -1; // spec 2.4 rule 1: -1 radiated, 0 active, 2 pending

export interface Owner {
  name: string;
  share: string | null;
}

export interface Owners {
  current: Owner[];
  former: Owner[];
}

function shareOf(p: NonNullable<PortalOwnershipNode['person']>): string | null {
  const s = p.share?.trim();
  if (s) return s;
  if (p.shareNumerator && p.shareDenominator) return `${p.shareNumerator}/${p.shareDenominator}`;
  return null;
}

function personName(n: PortalOwnershipNode): string | null {
  const p = n.person;
  const name = p?.name?.trim() || [p?.lastName, p?.firstName].filter(Boolean).join(' ').trim() || n.label?.trim();
  return name ? name.replace(/\s+/g, ' ') : null;
}

/**
 * Walks each person node upward through its inscription nodes: a person under any radiated
 * inscription is a former owner, the others (active or pending) are current. The walk stops at
 * the root, at a missing parent, or at a cycle (the portal's trees are flat lists with links).
 * Every person node is listed: two owners may well share a name (parent and child).
 */
export function ownersFromTree(nodes: readonly PortalOwnershipNode[]): Owners {
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  const current: Owner[] = [];
  const former: Owner[] = [];
  for (const n of nodes) {
    if (n.nodeType !== 'PERSON') continue;
    const name = personName(n);
    if (!name) continue;
    let radiated = n.nodeStatus === NODE_STATUS_RADIATED;
    const visited = new Set<number>([n.nodeId]);
    for (let parent = n.parentNodeId; parent !== null && parent !== undefined && !visited.has(parent); ) {
      visited.add(parent);
      const node = byId.get(parent);
      if (!node) break;
      if (node.nodeType === 'INSCRIPTION' && node.nodeStatus === NODE_STATUS_RADIATED) radiated = true;
      parent = node.parentNodeId;
    }
    (radiated ? former : current).push({ name, share: n.person ? shareOf(n.person) : null });
  }
  return { current, former };
}

/** `NAME (share); NAME (share)` (CONTRACT.md section 3); null when there is nobody. */
export function formatOwners(owners: readonly Owner[]): string | null {
  if (owners.length === 0) return null;
  return owners.map((o) => (o.share ? `${o.name} (${o.share})` : o.name)).join('; ');
}

/** The inverse of formatOwners, for the dashboard and search answers. */
export function parseOwners(text: string | null | undefined): Owner[] {
  if (!text) return [];
  return text
    .split('; ')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const m = /^(.*?)\s*\(([^()]*)\)$/.exec(part);
      return m ? { name: m[1], share: m[2] } : { name: part, share: null };
    });
}

// ---------------------------------------------------------------------------------------------
// Address (spec 2.4 rule 2)
// ---------------------------------------------------------------------------------------------

export const ADDRESS_SEPARATOR = ' | '; // spec 2.4 rule 2

const clean = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

/** One structured address as Romanian text, or null when the object holds no structured field. */
export function formatStructuredAddress(a: PortalAddress): string | null {
  const streetType = clean(a.street?.streetType?.name) || clean(a.street?.streetType?.code);
  const streetName = clean(a.street?.name);
  const street = [streetType, streetName].filter(Boolean).join(' ');
  const number = clean(a.postalNumber);
  const head = [street, number ? `nr. ${number}` : ''].filter(Boolean).join(' ');
  const parts = [
    head,
    clean(a.entrance) && `sc. ${clean(a.entrance)}`,
    clean(a.floor) && `et. ${clean(a.floor)}`,
    clean(a.unit) && `ap. ${clean(a.unit)}`,
    clean(a.section) && `sector ${clean(a.section)}`,
    clean(a.locality?.name) && `loc. ${clean(a.locality?.name)}`,
    clean(a.county?.name) && `jud. ${clean(a.county?.name)}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : null;
}

/**
 * Each address from its structured fields; the free text only for an address with no structured
 * field at all; several addresses joined by ' | ', duplicates (case and spacing aside) dropped.
 */
export function formatAddresses(addresses: readonly PortalAddress[] | null | undefined): string | null {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const a of addresses ?? []) {
    const text = formatStructuredAddress(a) ?? (clean(a.freeText) || null);
    if (!text) continue;
    const key = foldName(text);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(text);
  }
  return out.length ? out.join(ADDRESS_SEPARATOR) : null;
}

// ---------------------------------------------------------------------------------------------
// Areas, use categories, intravilan (spec 2.4 rule 3; CONTRACT.md section 3)
// ---------------------------------------------------------------------------------------------

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function folosinte(useCategories: readonly PortalUseCategory[] | null | undefined): Folosinta[] {
  return (useCategories ?? []).flatMap((u) => {
    const code = clean(u.useCategory?.code) || clean(u.useCategory?.name);
    if (!code) return [];
    return [{ categorie: code, suprafata: num(u.area), intravilan: u.intravilan === true ? 'DA' : u.intravilan === false ? 'NU' : null }];
  });
}

/** measuredArea, else legalArea, else the total of the use categories (null when none has an area). */
export function parcelArea(measured: number | null | undefined, legal: number | null | undefined, uses: readonly Folosinta[]): number | null {
  const m = num(measured);
  if (m !== null) return m;
  const l = num(legal);
  if (l !== null) return l;
  const areas = uses.map((u) => u.suprafata).filter((a): a is number => a !== null);
  return areas.length ? areas.reduce((s, a) => s + a, 0) : null;
}

/** `code:area` pairs joined by '; ' (e.g. `A:1200; CC:300`); a code listed twice is summed. */
export function formatCategories(uses: readonly Folosinta[]): string | null {
  const totals = new Map<string, number | null>();
  for (const u of uses) {
    const prev = totals.get(u.categorie) ?? null;
    totals.set(u.categorie, prev === null ? u.suprafata : u.suprafata === null ? prev : prev + u.suprafata);
  }
  if (totals.size === 0) return null;
  return [...totals].map(([code, area]) => (area === null ? code : `${code}:${Math.round(area * 100) / 100}`)).join('; ');
}

/** DA when every use category lies inside the built-up area, NU when none does, MIXT otherwise. */
export function intravilanOf(uses: readonly Folosinta[], flag: boolean | null | undefined): Intravilan | null {
  const known = uses.map((u) => u.intravilan).filter((v): v is 'DA' | 'NU' => v !== null);
  if (known.length) {
    if (known.every((v) => v === 'DA')) return 'DA';
    if (known.every((v) => v === 'NU')) return 'NU';
    return 'MIXT';
  }
  return flag === true ? 'DA' : flag === false ? 'NU' : null;
}

// ---------------------------------------------------------------------------------------------
// Documentation
// ---------------------------------------------------------------------------------------------

/** `type nr. <application> din <date>` entries joined by '; '. */
export function formatDocumentation(docs: readonly PortalDocumentation[] | null | undefined): string | null {
  const parts = (docs ?? []).flatMap((d) => {
    const type = clean(d.documentType);
    const no = clean(d.applicationNo);
    const date = clean(d.receptionDate);
    const text = [type, no && `nr. ${no}`, date && `din ${date}`].filter(Boolean).join(' ');
    return text ? [text] : [];
  });
  return parts.length ? parts.join('; ') : null;
}

// ---------------------------------------------------------------------------------------------
// The whole object
// ---------------------------------------------------------------------------------------------

/** What the store knows about the parcel's buildings (BUILD_LEGAL comes from the building layer). */
export interface BuildingFacts {
  /** Buildings of the parcel in the local building layer. */
  count: number;
  /** Of those, how many carry legal documents (IS_LEGAL = 1); null when the layer does not say. */
  legal: number | null;
}

export interface EnrichmentInput {
  details: PortalImmovableDetails;
  ownership: readonly PortalOwnershipNode[];
  buildings: BuildingFacts;
  /** Fallbacks from the store when the portal answer lacks them. */
  siruta: number;
  uatName?: string | null;
  county?: string | null;
  workspaceId?: number | null;
  cadastralRef?: string | null;
  now: Date;
}

/**
 * HAS_BUILDING is 1 when the store's building layer or the portal's details list a building;
 * BUILD_LEGAL is 1 when every stored building of the parcel carries legal documents, 0 when any
 * does not, null when there is no stored building to judge (the map shows those grey).
 */
export function buildingFlags(b: BuildingFacts, portalBuildings: number): { HAS_BUILDING: 0 | 1; BUILD_LEGAL: 0 | 1 | null } {
  const has = b.count > 0 || portalBuildings > 0 ? 1 : 0;
  const legal = b.count === 0 || b.legal === null ? null : b.legal === b.count ? 1 : 0;
  return { HAS_BUILDING: has, BUILD_LEGAL: legal };
}

export function buildEnrichment(input: EnrichmentInput): Enrichment {
  const d = input.details;
  const uses = folosinte(d.useCategories);
  const owners = ownersFromTree(input.ownership);
  const topo = (d.topoNumbers ?? []).map(clean).filter(Boolean);
  const countyFromAddress = (d.addresses ?? []).map((a) => clean(a.county?.name)).find(Boolean) ?? null;
  const flags = buildingFlags(input.buildings, (d.buildings ?? []).length);
  const measured = num(d.measuredArea);
  const legal = num(d.legalArea);
  return {
    NR_CAD: clean(d.cadastralNumber) || clean(input.cadastralRef) || null,
    NR_CF: clean(d.landbookNo) || null,
    NR_CF_VECHI: clean(d.oldLandbookNo) || null,
    NR_TOPO: topo.length ? topo.join(', ') : null,
    SIRUTA: num(d.adminUnitId) ?? input.siruta,
    UAT: clean(d.uatName) || clean(input.uatName) || null,
    JUDET: clean(input.county) || countyFromAddress,
    IMMOVABLE_ID: d.immovablePk,
    WORKSPACE_ID: num(d.workspaceId) ?? input.workspaceId ?? null,
    TIP_IMOBIL: clean(d.immovableType) || null,
    SUPRAFATA: parcelArea(measured, legal, uses),
    SUPRAFATA_MASURATA: measured,
    SUPRAFATA_ACTE: legal,
    INTRAVILAN: intravilanOf(uses, d.intravilan),
    CATEGORIE: formatCategories(uses),
    FOLOSINTE: uses.length ? uses : null,
    ADRESA: formatAddresses(d.addresses),
    PROPRIETARI: formatOwners(owners.current),
    PROPRIETARI_VECHI: formatOwners(owners.former),
    NR_PROPRIETARI: owners.current.length,
    SOLICITANT: clean(d.applicant?.name) || null,
    HAS_BUILDING: flags.HAS_BUILDING,
    BUILD_LEGAL: flags.BUILD_LEGAL,
    DOC: formatDocumentation(d.documentation),
    DATA_SURSA: typeof d.validFrom === 'number' ? new Date(d.validFrom).toISOString() : null,
    ENRICHED_AT: input.now.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Scope
// ---------------------------------------------------------------------------------------------

// The one `basic` scope redaction (CONTRACT.md section 3) lives with the geoportal's panel rules;
// enrichment routes and pages use the very same function.
export { PERSONAL_ENRICHMENT_KEYS, personalDataHidden, redactEnrichment } from '../auth/rules';

/** Owner names are personal data: hidden from basic panels and from scopes that null them. */
export function canSearchOwners(viewer: Viewer): boolean {
  return viewer.personalData;
}

// ---------------------------------------------------------------------------------------------
// Limits of the routes
// ---------------------------------------------------------------------------------------------

/** A cadastral search asks for at most this many numbers (each may cost portal calls). */
export const MAX_CADASTRAL_NUMBERS = 200;

/** Characters of an owner name searched for (POST /api/landreg/search-owner and the sync page's search tab). */
export const OWNER_NAME_MAX = 200;

/**
 * Why an owner name cannot be searched for, in the words a page shows; null when it can. The
 * API's schema holds the same bound, and refuses NUL on every input (PostgreSQL text cannot hold it).
 */
export function ownerNameProblem(name: string): string | null {
  if (name.includes('\u0000')) return 'Numele căutat conține un caracter nepermis.';
  if (name.length > OWNER_NAME_MAX) return `Numele căutat are mai mult de ${OWNER_NAME_MAX} de caractere.`;
  return null;
}
/** Spec section 8: the no-geometry scan gives up after 120 s (server and client). */
export const NO_GEOM_SCAN_TIMEOUT_MS = 120_000;
