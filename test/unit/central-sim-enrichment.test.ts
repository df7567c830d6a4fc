/**
 * Issue 28 (7): the central API simulator writes its enrichment records with its own code from
 * its own data (simulators/central/enrichment.ts), no longer with the product's rules. So the
 * product's rules (domain/enrichment/rules.ts, over the land-registry portal's answers for the
 * same generated immovables) are checked against an independent answer here: where they agree,
 * both read the data the same way; a product rule that goes wrong makes this test fail.
 */
import { describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { buildEnrichment } from '../../domain/enrichment/rules';
import type { PortalImmovableDetails, PortalOwnershipNode } from '../../domain/enrichment/portalTypes';
import { centralEnrichment, publicFacts, withoutPersonalFields } from '../../simulators/central/enrichment';
import { generateUat, uatTarget } from '../../simulators/landreg/generator';
import { immovableDetails, ownershipTree } from '../../simulators/landreg/immovables';
import { Nomenclature } from '../../simulators/landreg/nomenclature';

const SEED = 42;
const nom = new Nomenclature(config.landreg.simDataDir);

describe.each([63394, 63580])('UAT %i: the product reads the portal as the central API answers', (siruta) => {
  const uat = nom.uat(siruta)!;
  const data = generateUat(nom, uat, { seed: SEED, target: uatTarget(uat) });
  const buildings = data.layers.get('CLADIRI_ACTIVE')?.features ?? [];
  const legalOf = (pk: number) => buildings.filter((b) => b.attributes.IMMOVABLE_ID === pk).map((b) => b.attributes.IS_LEGAL === 1);
  const now = new Date('2026-11-25T10:00:00.000Z');

  test('every immovable: the same 26 keys with the same values', () => {
    const sample = data.immovables.slice(0, 400);
    expect(sample.length).toBeGreaterThan(50);
    // The sample covers what the rules decide: former owners, mixed intravilan, buildings, free-text addresses.
    expect(sample.some((i) => ownershipTree(SEED, uat, i).some((n) => n.nodeType === 'PERSON' && n.nodeStatus === -1))).toBe(true);
    expect(sample.some((i) => i.address === null)).toBe(true);
    for (const imm of sample) {
      const legal = legalOf(imm.immovablePk);
      const product = buildEnrichment({
        details: immovableDetails(SEED, nom, uat, imm) as unknown as PortalImmovableDetails,
        ownership: ownershipTree(SEED, uat, imm) as unknown as PortalOwnershipNode[],
        buildings: { count: legal.length, legal: legal.filter(Boolean).length },
        siruta: uat.siruta,
        uatName: uat.name,
        county: uat.countyName,
        workspaceId: uat.workspaceId,
        cadastralRef: imm.cadastralNumber,
        now,
      });
      const central = centralEnrichment({ seed: SEED, nom, uat, immovable: imm, buildingsLegal: legal }, now);
      expect({ immovable: imm.immovablePk, ...product }).toEqual({ immovable: imm.immovablePk, ...central });
    }
  });

  test("the simulator's own redaction and public facts hide the personal fields", () => {
    const imm = data.immovables[0];
    const full = centralEnrichment({ seed: SEED, nom, uat, immovable: imm, buildingsLegal: legalOf(imm.immovablePk) }, now);
    expect(full.PROPRIETARI).toEqual(expect.any(String));
    const basic = withoutPersonalFields(full);
    for (const k of ['NR_CF', 'ADRESA', 'PROPRIETARI', 'PROPRIETARI_VECHI', 'SOLICITANT', 'DOC'] as const) expect(basic[k]).toBeNull();
    expect(basic.NR_CAD).toBe(full.NR_CAD);
    expect(publicFacts(full)).toMatchObject({ NR_PROPRIETARI: null, ENRICHED_AT: null, PROPRIETARI: null, SUPRAFATA: full.SUPRAFATA });
  });
});
