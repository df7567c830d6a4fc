/** The one viewer rule (domain/auth/viewer.ts): who may see personal data, derived from the session. */
import { describe, expect, it } from '@jest/globals';
import { PERSONAL_ENRICHMENT_KEYS, redactEnrichment, redactRow, viewerOf } from '../../domain/auth/viewer';
import { PARCELS_LAYER, columnsFor, layerSelectSql } from '../../domain/exports/layers';

const enrichment = { NR_CAD: '104738', NR_CF: '50123', NR_CF_VECHI: '367', ADRESA: 'Str. Mare 1', PROPRIETARI: 'Zăvoianu Cornelia (1/2)', PROPRIETARI_VECHI: 'X (1/1)', SOLICITANT: 'Y', DOC: 'Z', SUPRAFATA: 500 };

describe('viewer rule', () => {
  it.each([
    ['full scope, full panel', { basicPanel: false, enrichmentScope: 'full' as const }, true],
    ['basic panel (elena)', { basicPanel: true, enrichmentScope: 'full' as const }, false],
    ['basic scope (ioana)', { basicPanel: false, enrichmentScope: 'basic' as const }, false],
    ['scope none', { basicPanel: false, enrichmentScope: 'none' as const }, false],
    ['no claim (radu)', { basicPanel: false, enrichmentScope: null }, false],
  ])('%s sees personal data: %s', (_label, session, allowed) => {
    const viewer = viewerOf(session);
    expect(viewer.personalData).toBe(allowed);
    const out = redactEnrichment(enrichment, viewer)!;
    for (const k of PERSONAL_ENRICHMENT_KEYS) expect(out[k] === null).toBe(!allowed);
    expect(out.NR_CAD).toBe('104738');
    expect(enrichment.PROPRIETARI).not.toBeNull();
  });

  it('NR_CF_VECHI is personal like NR_CF (CONTRACT 6): one list', () => {
    expect(PERSONAL_ENRICHMENT_KEYS).toEqual(expect.arrayContaining(['NR_CF', 'NR_CF_VECHI']));
    expect(redactEnrichment(enrichment, viewerOf({ basicPanel: true, enrichmentScope: 'full' }))!.NR_CF_VECHI).toBeNull();
  });

  it('the UAT exports read the same list: every column of a personal key is empty when personal data is hidden', () => {
    const select = (hidePersonal: boolean) =>
      layerSelectSql({ siruta: 42708, layerId: PARCELS_LAYER, includeNullGeometry: true, includeNoGeometryImports: true, hidePersonal, geometryKind: 'polygon' });
    const personalColumns = columnsFor(PARCELS_LAYER).filter((c) => c.enrichmentKey && (PERSONAL_ENRICHMENT_KEYS as readonly string[]).includes(c.enrichmentKey));
    expect(personalColumns.map((c) => c.name)).toEqual(expect.arrayContaining(['NR_CF', 'NR_CF_VECHI', 'ADRESA', 'PROPRIETARI_ACTUALI', 'PROPRIETARI_VECHI']));
    // Every column reading a personal key names it, so none can be forgotten by the hiding rule.
    for (const c of columnsFor(PARCELS_LAYER)) {
      for (const k of PERSONAL_ENRICHMENT_KEYS) if (c.expr.includes(`'${k}'`)) expect([c.name, c.enrichmentKey]).toEqual([c.name, k]);
    }
    for (const c of personalColumns) {
      expect(select(true)).toContain(`NULL::text AS "${c.name}"`);
      expect(select(false)).not.toContain(`NULL::text AS "${c.name}"`);
    }
  });

  it('no session at all is the most restricted viewer', () => {
    expect(viewerOf(undefined)).toMatchObject({ basicPanel: true, personalData: false, isAdmin: false });
  });

  it('redacts the enrichment and the portal attributes inside a raw store row, even for an admin without the right', () => {
    const row = { id: 'a', cadastral_ref: '104738', enrichment, PROPRIETARI: 'Q', attributes: { IMMOVABLE_ID: 7, LANDBOOK_NO: '50123-C1' } };
    const out = redactRow(row, viewerOf({ basicPanel: false, enrichmentScope: 'basic', isAdmin: true }));
    expect(JSON.stringify(out)).not.toContain('Zăvoianu');
    expect(JSON.stringify(out)).not.toContain('50123');
    expect(out.PROPRIETARI).toBeNull();
    expect(out.attributes).toEqual({ IMMOVABLE_ID: 7, LANDBOOK_NO: null });
    expect(out.cadastral_ref).toBe('104738');
    expect(redactRow(row, viewerOf({ basicPanel: false, enrichmentScope: 'full' }))).toEqual(row);
  });
});
