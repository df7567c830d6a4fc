/**
 * Immovable list entries, details, ownership node trees and searches. Owners, documentation and
 * applicant are derived on demand from (seed, immovablePk, revision), so a UAT of 200,000
 * immovables costs no memory for them and a /__sim/mutate change re-derives them.
 */
import { Prng, hashSeed } from '../shared/prng';
import type { SimImmovable, UatData } from './model';
import { COMPANIES, DOC_TYPES, FIRST_NAMES_F, FIRST_NAMES_M, INSCRIPTION_TITLES, SURNAMES, cedillaSpelling, foldRo } from './names';
import type { Nomenclature, Uat } from './nomenclature';

export const MAX_SEARCH_HITS = 50;

export interface OwnershipNode {
  nodeId: number;
  parentNodeId: number | null;
  nodeType: 'IMMOVABLE' | 'INSCRIPTION' | 'PERSON';
  /** -1 radiated, 0 active, 2 pending (for persons: that of their inscription). */
  nodeStatus: -1 | 0 | 2;
  label: string;
  inscription?: {
    type: string;
    registrationNo: string;
    registrationDate: string;
    title: string;
    share: string;
  };
  person?: {
    personType: 'PF' | 'PJ';
    name: string;
    firstName: string | null;
    lastName: string | null;
    share: string;
    shareNumerator: number;
    shareDenominator: number;
    idCode: string;
  };
}

const SHARE_PATTERNS: ReadonlyArray<readonly [number[], number]> = [
  [[1], 45],
  [[2, 2], 30],
  [[3, 3, 3], 10],
  [[2, 4, 4], 8],
  [[4, 4, 4, 4], 4],
  [[6, 6, 3, 3], 3],
];

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function personName(rng: Prng, uat: Uat): NonNullable<OwnershipNode['person']> & { gender: string } {
  if (rng.chance(0.06)) {
    const name = rng.pick(COMPANIES).replace('{uat}', uat.name);
    return { personType: 'PJ', name, firstName: null, lastName: null, share: '', shareNumerator: 1, shareDenominator: 1, idCode: `RO${rng.int(100000, 49999999)}`, gender: '' };
  }
  const female = rng.chance(0.5);
  let first = rng.pick(female ? FIRST_NAMES_F : FIRST_NAMES_M);
  let last = rng.pick(SURNAMES);
  if (rng.chance(0.15)) first = `${first}-${rng.pick(female ? FIRST_NAMES_F : FIRST_NAMES_M)}`;
  // The real register holds both spellings: older records use ş/ţ with cedilla.
  if (rng.chance(0.4)) {
    first = cedillaSpelling(first);
    last = cedillaSpelling(last);
  }
  const upper = rng.chance(0.3);
  const name = upper ? `${last} ${first}`.toLocaleUpperCase('ro') : `${last} ${first}`;
  const idCode = `${female ? 2 : 1}${String(rng.int(0, 999999)).padStart(6, '0')}******`;
  return { personType: 'PF', name, firstName: first, lastName: last, share: '', shareNumerator: 1, shareDenominator: 1, idCode, gender: female ? 'F' : 'M' };
}

function fillTitle(rng: Prng, uat: Uat, year: number): string {
  return rng
    .pick(INSCRIPTION_TITLES)
    .replace('{n}', String(rng.int(1, 4000)))
    .replace('{y}', String(year))
    .replace('{notar}', `${rng.pick(SURNAMES)} ${rng.pick(FIRST_NAMES_F)}`)
    .replace('{county}', uat.countyName)
    .replace('{uat}', uat.name);
}

/** The ownership node tree as a flat list with parent links (walk upward from a person). */
export function ownershipTree(seed: number, uat: Uat, imm: SimImmovable): OwnershipNode[] {
  const rng = new Prng(hashSeed(seed, 'owners', imm.immovablePk, imm.revision));
  const nodes: OwnershipNode[] = [];
  let next = 1;
  const root: OwnershipNode = { nodeId: next++, parentNodeId: null, nodeType: 'IMMOVABLE', nodeStatus: 0, label: `Imobil nr. cadastral ${imm.cadastralNumber}` };
  nodes.push(root);
  const year0 = new Date(imm.validFrom).getUTCFullYear();
  const addInscription = (status: -1 | 0 | 2, year: number) => {
    const pattern = rng.weighted(SHARE_PATTERNS);
    const regNo = `${rng.int(1, 60000)}/${year}`;
    const ins: OwnershipNode = {
      nodeId: next++,
      parentNodeId: root.nodeId,
      nodeType: 'INSCRIPTION',
      nodeStatus: status,
      label: status === -1 ? 'Drept de proprietate (radiat)' : status === 2 ? 'Drept de proprietate (în curs de soluționare)' : 'Drept de proprietate',
      inscription: {
        type: 'Intabulare, drept de proprietate',
        registrationNo: regNo,
        registrationDate: `${year}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`,
        title: fillTitle(rng, uat, year),
        share: '1/1',
      },
    };
    nodes.push(ins);
    for (const den of pattern) {
      const p = personName(rng, uat);
      const { gender: _gender, ...person } = p;
      nodes.push({
        nodeId: next++,
        parentNodeId: ins.nodeId,
        nodeType: 'PERSON',
        nodeStatus: status,
        label: person.name,
        person: { ...person, share: den === 1 ? '1/1' : `1/${den}`, shareNumerator: 1, shareDenominator: den },
      });
    }
  };
  if (rng.chance(0.35)) addInscription(-1, Math.max(1995, year0 - rng.int(1, 20)));
  addInscription(0, year0);
  if (rng.chance(0.08)) addInscription(2, Math.min(2025, year0 + rng.int(0, 3)));
  return nodes;
}

function addressObjects(nom: Nomenclature, uat: Uat, imm: SimImmovable, rng: Prng) {
  const county = nom.county(uat.workspaceId);
  if (!imm.address) return [{ freeText: imm.freeTextAddress }];
  const a = imm.address;
  const loc = uat.localities[a.localityIdx] ?? uat.localities[0];
  const one = {
    street: { name: a.streetName, streetType: { code: a.streetType.code, name: a.streetType.name } },
    postalNumber: a.postalNumber,
    entrance: a.entrance ?? null,
    floor: a.floor ?? null,
    unit: a.unit ?? null,
    section: null,
    postalCode: null,
    locality: { siruta: loc.siruta, name: loc.name },
    uat: { siruta: uat.siruta, name: uat.name },
    county: { workspaceId: uat.workspaceId, name: county?.name ?? uat.countyName, code: county?.code ?? null },
    freeText: null,
  };
  // Some records list the same address twice, as the real register does (clients must dedupe).
  return rng.chance(0.05) ? [one, { ...one }] : [one];
}

export function listEntry(imm: SimImmovable) {
  return {
    immovablePk: imm.immovablePk,
    cadastralNumber: imm.cadastralNumber,
    landbookNo: imm.landbookNo,
    topoNo: imm.topoNo,
    measuredArea: imm.measuredArea,
    legalArea: imm.legalArea,
    intravilan: imm.intravilan,
    immovableType: 'TEREN',
    status: 'ACTIV',
  };
}

export function immovableDetails(seed: number, nom: Nomenclature, uat: Uat, imm: SimImmovable) {
  const rng = new Prng(hashSeed(seed, 'details', imm.immovablePk, imm.revision));
  const year = new Date(imm.validFrom).getUTCFullYear();
  const documentation = Array.from({ length: rng.int(1, 3) }, (_, i) => ({
    documentType: i === 0 ? 'Primă înregistrare' : rng.pick(DOC_TYPES),
    applicationNo: `${rng.int(1, 90000)}/${year - i}`,
    receptionDate: isoDate(imm.validFrom - i * rng.int(200, 900) * 86_400_000),
    cadastralEngineer: `${rng.pick(SURNAMES)} ${rng.pick(FIRST_NAMES_M)}`,
    measuredArea: imm.measuredArea,
  }));
  const applicantRng = new Prng(hashSeed(seed, 'applicant', imm.immovablePk, imm.revision));
  const applicant = personName(applicantRng, uat);
  return {
    immovablePk: imm.immovablePk,
    workspaceId: uat.workspaceId,
    adminUnitId: uat.siruta,
    uatName: uat.name,
    cadastralNumber: imm.cadastralNumber,
    landbookNo: imm.landbookNo,
    oldLandbookNo: imm.oldLandbookNo,
    topoNumbers: imm.topoNo ? [imm.topoNo] : [],
    immovableType: 'TEREN',
    intravilan: imm.intravilan,
    measuredArea: imm.measuredArea,
    legalArea: imm.legalArea,
    useCategories: imm.useCategories.map((u) => ({
      useCategory: { code: u.code, name: u.name },
      area: u.area,
      intravilan: u.intravilan,
    })),
    addresses: addressObjects(nom, uat, imm, rng),
    buildings: imm.buildingRefs.map((ref) => ({ cadastralNumber: ref })),
    documentation,
    applicant: { personType: applicant.personType, name: applicant.name },
    hasGeometry: imm.objectId !== null,
    validFrom: imm.validFrom,
  };
}

/** Owners in the shape spec 2.4 asks for: current (active or pending) and former (radiated). */
export function ownersSummary(nodes: OwnershipNode[]) {
  const persons = nodes.filter((n) => n.nodeType === 'PERSON');
  const view = (n: OwnershipNode) => ({ name: n.person!.name, share: n.person!.share, nodeStatus: n.nodeStatus });
  return {
    current: persons.filter((n) => n.nodeStatus !== -1).map(view),
    former: persons.filter((n) => n.nodeStatus === -1).map(view),
  };
}

export function searchByCadastral(seed: number, nom: Nomenclature, uats: Array<{ uat: Uat; data: UatData }>, numbers: string[]) {
  const wanted = new Set(numbers.map((n) => n.trim()).filter(Boolean));
  const hits: unknown[] = [];
  let total = 0;
  for (const { uat, data } of uats) {
    for (const imm of data.immovables) {
      if (!wanted.has(imm.cadastralNumber) && !wanted.has(imm.landbookNo)) continue;
      total++;
      if (hits.length >= MAX_SEARCH_HITS) continue;
      const details = immovableDetails(seed, nom, uat, imm);
      hits.push({ ...details, owners: ownersSummary(ownershipTree(seed, uat, imm)) });
    }
  }
  return { content: hits, totalElements: total, truncated: total > hits.length };
}

export function searchByOwner(seed: number, uats: Array<{ uat: Uat; data: UatData }>, name: string) {
  const tokens = foldRo(name).split(' ').filter(Boolean);
  const hits: unknown[] = [];
  let total = 0;
  if (tokens.length === 0) return { content: hits, totalElements: 0, truncated: false };
  for (const { uat, data } of uats) {
    for (const imm of data.immovables) {
      const nodes = ownershipTree(seed, uat, imm);
      for (const n of nodes) {
        if (n.nodeType !== 'PERSON') continue;
        const folded = foldRo(n.person!.name);
        if (!tokens.every((t) => folded.includes(t))) continue;
        total++;
        if (hits.length < MAX_SEARCH_HITS) {
          hits.push({
            immovablePk: imm.immovablePk,
            adminUnitId: uat.siruta,
            cadastralNumber: imm.cadastralNumber,
            landbookNo: imm.landbookNo,
            ownerName: n.person!.name,
            share: n.person!.share,
            nodeStatus: n.nodeStatus,
          });
        }
      }
    }
  }
  return { content: hits, totalElements: total, truncated: total > hits.length };
}
