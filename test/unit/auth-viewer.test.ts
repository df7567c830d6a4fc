/** The one viewer rule (domain/auth/viewer.ts): who may see personal data, derived from the session. */
import { describe, expect, it } from '@jest/globals';
import { PERSONAL_ENRICHMENT_KEYS, redactEnrichment, redactRow, viewerOf } from '../../domain/auth/viewer';

const enrichment = { NR_CAD: '104738', NR_CF: '50123', ADRESA: 'Str. Mare 1', PROPRIETARI: 'Zăvoianu Cornelia (1/2)', PROPRIETARI_VECHI: 'X (1/1)', SOLICITANT: 'Y', DOC: 'Z', SUPRAFATA: 500 };

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

  it('no session at all is the most restricted viewer', () => {
    expect(viewerOf(undefined)).toMatchObject({ basicPanel: true, personalData: false, isAdmin: false });
  });

  it('redacts the enrichment inside a raw store row, even for an admin without the right', () => {
    const row = { id: 'a', cadastral_ref: '104738', enrichment, PROPRIETARI: 'Q' };
    const out = redactRow(row, viewerOf({ basicPanel: false, enrichmentScope: 'basic', isAdmin: true }));
    expect(JSON.stringify(out)).not.toContain('Zăvoianu');
    expect(out.PROPRIETARI).toBeNull();
    expect(out.cadastral_ref).toBe('104738');
  });
});
