/**
 * The central store's enrichment record (CONTRACT.md section 3, the 26 keys) written from the
 * simulator's own data: the generated immovable, its owners as the generator made them (who holds
 * an active, pending or radiated right), its buildings in the catalogue. Nothing here reads the
 * portal's wire shapes or the product's rules (domain/enrichment/rules.ts builds the same record
 * from the portal's answers), so a product rule that goes wrong disagrees with this simulator
 * and a test can see it (test/unit/central-sim-enrichment.test.ts).
 */
import { immovableDetails, ownershipTree } from '../landreg/immovables';
import type { SimImmovable } from '../landreg/model';
import type { Nomenclature, Uat } from '../landreg/nomenclature';

export interface CentralFolosinta {
  categorie: string;
  suprafata: number;
  intravilan: 'DA' | 'NU';
}

export interface CentralEnrichment {
  NR_CAD: string;
  NR_CF: string | null;
  NR_CF_VECHI: string | null;
  NR_TOPO: string | null;
  SIRUTA: number;
  UAT: string;
  JUDET: string;
  IMMOVABLE_ID: number;
  WORKSPACE_ID: number;
  TIP_IMOBIL: string;
  SUPRAFATA: number | null;
  SUPRAFATA_MASURATA: number | null;
  SUPRAFATA_ACTE: number | null;
  INTRAVILAN: 'DA' | 'NU' | 'MIXT';
  CATEGORIE: string | null;
  FOLOSINTE: CentralFolosinta[] | null;
  ADRESA: string | null;
  PROPRIETARI: string | null;
  PROPRIETARI_VECHI: string | null;
  NR_PROPRIETARI: number | null;
  SOLICITANT: string | null;
  HAS_BUILDING: 0 | 1;
  BUILD_LEGAL: 0 | 1 | null;
  DOC: string | null;
  DATA_SURSA: string;
  ENRICHED_AT: string | null;
}

/** What the central API hides from a `basic` token (EXTERNAL-SERVICES.md "Central GIS API"). */
export const CENTRAL_PERSONAL_FIELDS = ['NR_CF', 'ADRESA', 'PROPRIETARI', 'PROPRIETARI_VECHI', 'SOLICITANT', 'DOC'] as const;

export interface EnrichmentSource {
  seed: number;
  nom: Nomenclature;
  uat: Uat;
  immovable: SimImmovable;
  /** IS_LEGAL of each stored building of the parcel. */
  buildingsLegal: boolean[];
}

const joined = (parts: string[], sep: string): string | null => (parts.length ? parts.join(sep) : null);

function address(nom: Nomenclature, uat: Uat, imm: SimImmovable): string | null {
  const a = imm.address;
  if (!a) return imm.freeTextAddress;
  const locality = (uat.localities[a.localityIdx] ?? uat.localities[0])?.name;
  const county = nom.county(uat.workspaceId)?.name ?? uat.countyName;
  const head = `${a.streetType.name || a.streetType.code} ${a.streetName} nr. ${a.postalNumber}`;
  return [
    head,
    a.entrance ? `sc. ${a.entrance}` : '',
    a.floor ? `et. ${a.floor}` : '',
    a.unit ? `ap. ${a.unit}` : '',
    locality ? `loc. ${locality}` : '',
    `jud. ${county}`,
  ]
    .filter(Boolean)
    .join(', ');
}

function categories(imm: SimImmovable): string | null {
  const totals = new Map<string, number>();
  for (const u of imm.useCategories) totals.set(u.code, (totals.get(u.code) ?? 0) + u.area);
  return joined([...totals].map(([code, area]) => `${code}:${Math.round(area * 100) / 100}`), '; ');
}

function intravilan(imm: SimImmovable): 'DA' | 'NU' | 'MIXT' {
  if (imm.useCategories.length === 0) return imm.intravilan ? 'DA' : 'NU';
  const inside = imm.useCategories.filter((u) => u.intravilan).length;
  return inside === imm.useCategories.length ? 'DA' : inside === 0 ? 'NU' : 'MIXT';
}

/** The full record after an enrichment round trip at `now`. */
export function centralEnrichment(src: EnrichmentSource, now: Date): CentralEnrichment {
  const { seed, nom, uat, immovable: imm } = src;
  // The generator gives every person the state of the right it holds: radiated (-1) or not.
  const persons = ownershipTree(seed, uat, imm).flatMap((n) => (n.person ? [{ text: `${n.person.name} (${n.person.share})`, radiated: n.nodeStatus === -1 }] : []));
  const current = persons.filter((p) => !p.radiated).map((p) => p.text);
  const former = persons.filter((p) => p.radiated).map((p) => p.text);
  const record = immovableDetails(seed, nom, uat, imm);
  const useArea = imm.useCategories.reduce((s, u) => s + u.area, 0);
  const legalBuildings = src.buildingsLegal.filter(Boolean).length;
  return {
    NR_CAD: imm.cadastralNumber,
    NR_CF: imm.landbookNo || null,
    NR_CF_VECHI: imm.oldLandbookNo,
    NR_TOPO: imm.topoNo,
    SIRUTA: uat.siruta,
    UAT: uat.name,
    JUDET: uat.countyName,
    IMMOVABLE_ID: imm.immovablePk,
    WORKSPACE_ID: uat.workspaceId,
    TIP_IMOBIL: 'TEREN',
    SUPRAFATA: imm.measuredArea ?? imm.legalArea ?? (imm.useCategories.length ? useArea : null),
    SUPRAFATA_MASURATA: imm.measuredArea,
    SUPRAFATA_ACTE: imm.legalArea,
    INTRAVILAN: intravilan(imm),
    CATEGORIE: categories(imm),
    FOLOSINTE: imm.useCategories.length ? imm.useCategories.map((u) => ({ categorie: u.code, suprafata: u.area, intravilan: u.intravilan ? 'DA' : 'NU' })) : null,
    ADRESA: address(nom, uat, imm),
    PROPRIETARI: joined(current, '; '),
    PROPRIETARI_VECHI: joined(former, '; '),
    NR_PROPRIETARI: current.length,
    SOLICITANT: record.applicant.name,
    HAS_BUILDING: src.buildingsLegal.length > 0 || imm.buildingRefs.length > 0 ? 1 : 0,
    BUILD_LEGAL: src.buildingsLegal.length === 0 ? null : legalBuildings === src.buildingsLegal.length ? 1 : 0,
    DOC: joined(record.documentation.map((d) => `${d.documentType} nr. ${d.applicationNo} din ${d.receptionDate}`), '; '),
    DATA_SURSA: new Date(imm.validFrom).toISOString(),
    ENRICHED_AT: now.toISOString(),
  };
}

/** What the central store knows before any enrichment round trip: the public facts only. */
export function publicFacts(full: CentralEnrichment): CentralEnrichment {
  return { ...withoutPersonalFields(full), NR_PROPRIETARI: null, ENRICHED_AT: null };
}

/** A `basic` token's view: the personal fields null (the central API's own redaction). */
export function withoutPersonalFields(e: CentralEnrichment): CentralEnrichment {
  const out = { ...e };
  for (const k of CENTRAL_PERSONAL_FIELDS) out[k] = null;
  return out;
}
