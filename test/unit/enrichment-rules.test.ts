/**
 * Enrichment rules of spec 2.4 and CONTRACT.md section 3, table-driven over portal answers copied
 * from the land-registry simulator (demo seed 42, UAT Chiscani 42708).
 */
import { foldName } from '../../domain/text/fold';
import { describe, expect, it } from '@jest/globals';
import {
  ENRICHMENT_KEYS,
  PERSONAL_ENRICHMENT_KEYS,
  buildEnrichment,
  buildingFlags,
  formatAddresses,
  formatCategories,
  formatOwners,
  folosinte,
  intravilanOf,
  nameTokens,
  ownersFromTree,
  parcelArea,
  parseOwners,
  redactEnrichment,
} from '../../domain/enrichment/rules';
import { viewerOf } from '../../domain/auth/viewer';
import type { PortalAddress, PortalImmovableDetails, PortalOwnershipNode } from '../../domain/enrichment/portalTypes';

// Immovable 258800036: a radiated inscription (one former owner, cedilla spelling) and an active
// one with two owners sharing 1/2 each, one of them spelled with the cedilla ţ.
const treeRadiated: PortalOwnershipNode[] = [
  { nodeId: 1, parentNodeId: null, nodeType: 'IMMOVABLE', nodeStatus: 0, label: 'Imobil nr. cadastral 104777' },
  { nodeId: 2, parentNodeId: 1, nodeType: 'INSCRIPTION', nodeStatus: -1, label: 'Drept de proprietate (radiat)', inscription: { type: 'Intabulare, drept de proprietate', registrationNo: '32512/2009', registrationDate: '2009-01-19', title: 'Certificat de moștenitor nr. 40/2009 emis de BNP Pătrașcu Georgeta', share: '1/1' } },
  { nodeId: 3, parentNodeId: 2, nodeType: 'PERSON', nodeStatus: -1, label: 'ROŞU AUREL', person: { personType: 'PF', name: 'ROŞU AUREL', firstName: 'Aurel', lastName: 'Roşu', share: '1/1', shareNumerator: 1, shareDenominator: 1 } },
  { nodeId: 4, parentNodeId: 1, nodeType: 'INSCRIPTION', nodeStatus: 0, label: 'Drept de proprietate', inscription: { type: 'Intabulare, drept de proprietate', registrationNo: '36133/2015', registrationDate: '2015-06-14', title: 'Titlu de proprietate nr. 854/2015 emis de Comisia Județeană Brăila', share: '1/1' } },
  { nodeId: 5, parentNodeId: 4, nodeType: 'PERSON', nodeStatus: 0, label: 'IONESCU CORNEL-CONSTANTIN', person: { personType: 'PF', name: 'IONESCU CORNEL-CONSTANTIN', firstName: 'Cornel-Constantin', lastName: 'Ionescu', share: '1/2', shareNumerator: 1, shareDenominator: 2 } },
  { nodeId: 6, parentNodeId: 4, nodeType: 'PERSON', nodeStatus: 0, label: 'Niţă Mioara', person: { personType: 'PF', name: 'Niţă Mioara', firstName: 'Mioara', lastName: 'Niţă', share: '1/2', shareNumerator: 1, shareDenominator: 2 } },
];

// Immovable with radiated, active and pending inscriptions (pending owners are current owners).
const treePending: PortalOwnershipNode[] = [
  { nodeId: 1, parentNodeId: null, nodeType: 'IMMOVABLE', nodeStatus: 0, label: 'Imobil nr. cadastral 104740' },
  { nodeId: 2, parentNodeId: 1, nodeType: 'INSCRIPTION', nodeStatus: -1, label: 'Drept de proprietate (radiat)' },
  { nodeId: 3, parentNodeId: 2, nodeType: 'PERSON', nodeStatus: -1, label: 'TOMA LUCIAN', person: { personType: 'PF', name: 'TOMA LUCIAN', share: '1/2', shareNumerator: 1, shareDenominator: 2 } },
  { nodeId: 4, parentNodeId: 2, nodeType: 'PERSON', nodeStatus: -1, label: 'Ciobanu Elena', person: { personType: 'PF', name: 'Ciobanu Elena', share: '1/4', shareNumerator: 1, shareDenominator: 4 } },
  { nodeId: 5, parentNodeId: 2, nodeType: 'PERSON', nodeStatus: -1, label: 'Radu Georgeta', person: { personType: 'PF', name: 'Radu Georgeta', share: '1/4', shareNumerator: 1, shareDenominator: 4 } },
  { nodeId: 6, parentNodeId: 1, nodeType: 'INSCRIPTION', nodeStatus: 0, label: 'Drept de proprietate' },
  { nodeId: 7, parentNodeId: 6, nodeType: 'PERSON', nodeStatus: 0, label: 'Dumitru Ovidiu', person: { personType: 'PF', name: 'Dumitru Ovidiu', share: '1/1', shareNumerator: 1, shareDenominator: 1 } },
  { nodeId: 8, parentNodeId: 1, nodeType: 'INSCRIPTION', nodeStatus: 2, label: 'Drept de proprietate (în curs de soluționare)' },
  { nodeId: 9, parentNodeId: 8, nodeType: 'PERSON', nodeStatus: 2, label: 'RUSU NICOLAE', person: { personType: 'PF', name: 'RUSU NICOLAE', share: '1/2', shareNumerator: 1, shareDenominator: 2 } },
  { nodeId: 10, parentNodeId: 8, nodeType: 'PERSON', nodeStatus: 2, label: 'Popescu Ovidiu', person: { personType: 'PF', name: 'Popescu Ovidiu', share: '1/2', shareNumerator: 1, shareDenominator: 2 } },
];

const structured: PortalAddress = {
  street: { name: 'Plopilor', streetType: { code: 'STR', name: 'Strada' } },
  postalNumber: '31', entrance: null, floor: null, unit: null, section: null, postalCode: null,
  locality: { siruta: 42717, name: 'Chiscani' }, uat: { siruta: 42708, name: 'Chiscani' },
  county: { workspaceId: 92, name: 'Brăila', code: 'BR' }, freeText: null,
};

const detailsRadiated: PortalImmovableDetails = {
  immovablePk: 258800036, workspaceId: 92, adminUnitId: 42708, uatName: 'Chiscani', cadastralNumber: '104777',
  landbookNo: '104777', oldLandbookNo: '367', topoNumbers: ['1862/5'], immovableType: 'TEREN', intravilan: true,
  measuredArea: 576, legalArea: 560,
  useCategories: [{ useCategory: { code: 'L', name: 'livezi' }, area: 560, intravilan: true }],
  addresses: [structured], buildings: [{ cadastralNumber: '104777-C1' }],
  documentation: [
    { documentType: 'Primă înregistrare', applicationNo: '33140/2015', receptionDate: '2015-08-19', cadastralEngineer: 'Gheorghe Ovidiu', measuredArea: 576 },
    { documentType: 'Dezmembrare', applicationNo: '83280/2013', receptionDate: '2014-04-12', cadastralEngineer: 'Mureșan Ionuț', measuredArea: 576 },
  ],
  applicant: { personType: 'PF', name: 'Gheorghe Ștefan' }, hasGeometry: true, validFrom: 1440016934000,
};

const detailsFreeText: PortalImmovableDetails = {
  immovablePk: 258800001, workspaceId: 92, adminUnitId: 42708, uatName: 'Chiscani', cadastralNumber: '1000',
  landbookNo: '69770', oldLandbookNo: null, topoNumbers: [], immovableType: 'TEREN', intravilan: true,
  measuredArea: null, legalArea: null,
  useCategories: [
    { useCategory: { code: 'CC', name: 'curți construcții' }, area: 343, intravilan: true },
    { useCategory: { code: 'A', name: 'arabil' }, area: 201, intravilan: true },
  ],
  addresses: [{ freeText: 'Sat Chiscani, nr. 2, jud. Brăila' }], buildings: [],
  documentation: [{ documentType: 'Primă înregistrare', applicationNo: '43769/2016', receptionDate: '2016-04-15', cadastralEngineer: 'Dobre Cornel', measuredArea: null }],
  applicant: { personType: 'PF', name: 'Bíró Iosif' }, hasGeometry: true, validFrom: 1460732958000,
};

describe('owners (spec 2.4 rule 1)', () => {
  it.each([
    ['radiated inscription → former, active → current, shares kept', treeRadiated, 'IONESCU CORNEL-CONSTANTIN (1/2); Niţă Mioara (1/2)', 'ROŞU AUREL (1/1)'],
    ['pending inscriptions count as current owners', treePending, 'Dumitru Ovidiu (1/1); RUSU NICOLAE (1/2); Popescu Ovidiu (1/2)', 'TOMA LUCIAN (1/2); Ciobanu Elena (1/4); Radu Georgeta (1/4)'],
  ])('%s', (_name, tree, current, former) => {
    const o = ownersFromTree(tree);
    expect(formatOwners(o.current)).toBe(current);
    expect(formatOwners(o.former)).toBe(former);
  });

  it('walks upward through nested inscriptions: a person under an active inscription whose parent was radiated is a former owner', () => {
    const nested: PortalOwnershipNode[] = [
      { nodeId: 1, parentNodeId: null, nodeType: 'IMMOVABLE', nodeStatus: 0 },
      { nodeId: 2, parentNodeId: 1, nodeType: 'INSCRIPTION', nodeStatus: -1 },
      { nodeId: 3, parentNodeId: 2, nodeType: 'INSCRIPTION', nodeStatus: 0 },
      { nodeId: 4, parentNodeId: 3, nodeType: 'PERSON', nodeStatus: 0, person: { name: 'Stan Maria', share: '1/1' } },
    ];
    expect(ownersFromTree(nested)).toEqual({ current: [], former: [{ name: 'Stan Maria', share: '1/1' }] });
  });

  it('survives a missing parent and a cycle, and builds the share from numerator/denominator', () => {
    const odd: PortalOwnershipNode[] = [
      { nodeId: 5, parentNodeId: 6, nodeType: 'INSCRIPTION', nodeStatus: 0 },
      { nodeId: 6, parentNodeId: 5, nodeType: 'INSCRIPTION', nodeStatus: 0 },
      { nodeId: 7, parentNodeId: 5, nodeType: 'PERSON', nodeStatus: 0, person: { name: 'Pop Ana', share: '', shareNumerator: 1, shareDenominator: 3 } },
      { nodeId: 8, parentNodeId: 99, nodeType: 'PERSON', nodeStatus: 0, person: { name: 'Agro Prod Câmpia SRL', share: '1/1' } },
    ];
    expect(formatOwners(ownersFromTree(odd).current)).toBe('Pop Ana (1/3); Agro Prod Câmpia SRL (1/1)');
  });

  it('an immovable without persons has no owners (null, not an empty string)', () => {
    expect(formatOwners(ownersFromTree([treeRadiated[0]]).current)).toBeNull();
  });

  it('parseOwners reads back what formatOwners wrote', () => {
    expect(parseOwners('IONESCU CORNEL-CONSTANTIN (1/2); Niţă Mioara (1/2)')).toEqual([
      { name: 'IONESCU CORNEL-CONSTANTIN', share: '1/2' },
      { name: 'Niţă Mioara', share: '1/2' },
    ]);
  });
});

describe('name normalisation', () => {
  it.each([
    ['Ştefan', 'stefan'],
    ['Ștefan', 'stefan'],
    ['ŢURCANU Ţepeş', 'turcanu tepes'],
    ['Țîrlea  Lăcrămioara', 'tirlea lacramioara'],
    ['Sârbu Anișoara', 'sarbu anisoara'],
    ['Bíró Erzsébet', 'biro erzsebet'],
  ])('%s → %s', (input, out) => expect(foldName(input)).toBe(out));

  it('tokens ignore order-bearing spacing', () => expect(nameTokens('  Ştefan   POPESCU ')).toEqual(['stefan', 'popescu']));
});

describe('address (spec 2.4 rule 2)', () => {
  it.each<[string, PortalAddress[], string | null]>([
    ['structured: street type + name, number, locality, county', [structured], 'Strada Plopilor nr. 31, loc. Chiscani, jud. Brăila'],
    ['entrance, floor, unit and section', [{ ...structured, entrance: 'B', floor: '3', unit: '12', section: '2' }], 'Strada Plopilor nr. 31, sc. B, et. 3, ap. 12, sector 2, loc. Chiscani, jud. Brăila'],
    ['free text only when nothing structured exists', [{ freeText: 'Sat Chiscani, nr. 2, jud. Brăila' }], 'Sat Chiscani, nr. 2, jud. Brăila'],
    ['structured wins over free text of the same address', [{ ...structured, freeText: 'ignorat' }], 'Strada Plopilor nr. 31, loc. Chiscani, jud. Brăila'],
    ['duplicate addresses collapse', [structured, { ...structured }], 'Strada Plopilor nr. 31, loc. Chiscani, jud. Brăila'],
    ['several addresses joined by |', [structured, { freeText: 'Extravilan Chiscani, Tarla 4, Parcela 7' }], 'Strada Plopilor nr. 31, loc. Chiscani, jud. Brăila | Extravilan Chiscani, Tarla 4, Parcela 7'],
    ['street type falls back to its code', [{ street: { name: 'Unirii', streetType: { code: 'BD' } }, postalNumber: '1' }], 'BD Unirii nr. 1'],
    ['no address at all', [], null],
  ])('%s', (_name, addresses, expected) => expect(formatAddresses(addresses)).toBe(expected));
});

describe('areas, categories, intravilan (spec 2.4 rule 3)', () => {
  const twoUses = folosinte(detailsFreeText.useCategories);
  it.each<[string, number | null, number | null, number | null]>([
    ['measured area first', 576, 560, 576],
    ['legal area when nothing was measured', null, 560, 560],
    ['total of the use categories when both are null', null, null, 544],
  ])('%s', (_n, measured, legal, expected) => expect(parcelArea(measured, legal, twoUses)).toBe(expected));

  it('categories as code:area pairs, FOLOSINTE as objects', () => {
    expect(formatCategories(twoUses)).toBe('CC:343; A:201');
    expect(twoUses).toEqual([
      { categorie: 'CC', suprafata: 343, intravilan: 'DA' },
      { categorie: 'A', suprafata: 201, intravilan: 'DA' },
    ]);
  });

  it.each<[string, Array<'DA' | 'NU' | null>, boolean | null, string | null]>([
    ['all inside → DA', ['DA', 'DA'], false, 'DA'],
    ['all outside → NU', ['NU'], true, 'NU'],
    ['some of each → MIXT', ['DA', 'NU'], true, 'MIXT'],
    ['no category flags → the immovable flag', [null], true, 'DA'],
    ['nothing known → null', [], null, null],
  ])('%s', (_n, flags, flag, expected) => {
    const uses = flags.map((f) => ({ categorie: 'A', suprafata: 1, intravilan: f }));
    expect(intravilanOf(uses, flag)).toBe(expected);
  });
});

describe('buildings', () => {
  it.each<[string, { count: number; legal: number | null }, number, { HAS_BUILDING: 0 | 1; BUILD_LEGAL: 0 | 1 | null }]>([
    ['no building anywhere', { count: 0, legal: null }, 0, { HAS_BUILDING: 0, BUILD_LEGAL: null }],
    ['portal lists one the store has not synced yet', { count: 0, legal: null }, 1, { HAS_BUILDING: 1, BUILD_LEGAL: null }],
    ['every stored building legal', { count: 2, legal: 2 }, 2, { HAS_BUILDING: 1, BUILD_LEGAL: 1 }],
    ['one stored building without documents', { count: 2, legal: 1 }, 2, { HAS_BUILDING: 1, BUILD_LEGAL: 0 }],
  ])('%s', (_n, facts, portal, expected) => expect(buildingFlags(facts, portal)).toEqual(expected));
});

describe('buildEnrichment', () => {
  const now = new Date('2025-06-01T10:00:00.000Z');
  it('fills every key of CONTRACT.md section 3 from a structured, two-owner immovable', () => {
    const e = buildEnrichment({ details: detailsRadiated, ownership: treeRadiated, buildings: { count: 1, legal: 1 }, siruta: 42708, county: 'Brăila', now });
    expect(Object.keys(e)).toEqual([...ENRICHMENT_KEYS]);
    expect(e).toEqual({
      NR_CAD: '104777', NR_CF: '104777', NR_CF_VECHI: '367', NR_TOPO: '1862/5', SIRUTA: 42708, UAT: 'Chiscani', JUDET: 'Brăila',
      IMMOVABLE_ID: 258800036, WORKSPACE_ID: 92, TIP_IMOBIL: 'TEREN', SUPRAFATA: 576, SUPRAFATA_MASURATA: 576, SUPRAFATA_ACTE: 560,
      INTRAVILAN: 'DA', CATEGORIE: 'L:560', FOLOSINTE: [{ categorie: 'L', suprafata: 560, intravilan: 'DA' }],
      ADRESA: 'Strada Plopilor nr. 31, loc. Chiscani, jud. Brăila',
      PROPRIETARI: 'IONESCU CORNEL-CONSTANTIN (1/2); Niţă Mioara (1/2)', PROPRIETARI_VECHI: 'ROŞU AUREL (1/1)', NR_PROPRIETARI: 2,
      SOLICITANT: 'Gheorghe Ștefan', HAS_BUILDING: 1, BUILD_LEGAL: 1,
      DOC: 'Primă înregistrare nr. 33140/2015 din 2015-08-19; Dezmembrare nr. 83280/2013 din 2014-04-12',
      DATA_SURSA: '2015-08-19T20:42:14.000Z', ENRICHED_AT: '2025-06-01T10:00:00.000Z',
    });
  });

  it('a sparse answer still has every key, null where unknown', () => {
    const e = buildEnrichment({ details: { immovablePk: 7 }, ownership: [], buildings: { count: 0, legal: null }, siruta: 42708, cadastralRef: '55', now });
    expect(Object.keys(e)).toEqual([...ENRICHMENT_KEYS]);
    expect(e).toMatchObject({ NR_CAD: '55', SIRUTA: 42708, IMMOVABLE_ID: 7, SUPRAFATA: null, ADRESA: null, PROPRIETARI: null, NR_PROPRIETARI: 0, HAS_BUILDING: 0, BUILD_LEGAL: null, INTRAVILAN: null, FOLOSINTE: null });
  });

  it('free-text address and the use-category area total', () => {
    const e = buildEnrichment({ details: detailsFreeText, ownership: treePending, buildings: { count: 0, legal: null }, siruta: 42708, now });
    expect(e).toMatchObject({ ADRESA: 'Sat Chiscani, nr. 2, jud. Brăila', SUPRAFATA: 544, SUPRAFATA_MASURATA: null, SUPRAFATA_ACTE: null, CATEGORIE: 'CC:343; A:201', NR_CF_VECHI: null, NR_TOPO: null, JUDET: null });
  });
});

describe('basic scope redaction', () => {
  const e = buildEnrichment({ details: detailsRadiated, ownership: treeRadiated, buildings: { count: 1, legal: 1 }, siruta: 42708, now: new Date(0) });
  it.each([
    ['basic', true],
    ['none', true],
    ['full', false],
    [null, true],
  ] as const)('scope %s redacts personal keys: %s', (scope, redacted) => {
    const out = redactEnrichment({ ...e }, viewerOf({ basicPanel: false, enrichmentScope: scope }));
    for (const k of PERSONAL_ENRICHMENT_KEYS) expect(out![k] === null).toBe(redacted);
    expect(out!.NR_CAD).toBe('104777');
    expect(out!.SUPRAFATA).toBe(576);
    expect(e.PROPRIETARI).not.toBeNull(); // the input is never mutated
  });
});
