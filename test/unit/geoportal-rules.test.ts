/** Pure rules of the geoportal: diacritic folding, owner picking, redaction, export names, the 410 gate. */
import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { matchingOwner, slug } from '../../domain/geoportal/text';
import { escapeLike } from '../../domain/text/like';
import { foldDiacritics } from '../../domain/text/fold';
import { redactEnrichment, viewerOf } from '../../domain/geoportal/rules';
import { uiState } from '../../domain/cfportal/rules';
import { exportFileName } from '../../domain/geoportal/export';
import { legacyWriteGate } from '../../api/http/gates';
import { AppError } from '../../domain/errors';

describe('geoportal text rules', () => {
  it.each([
    ['Ştefăneşti', 'stefanesti'], // cedilla
    ['Ștefănești', 'stefanesti'], // comma below
    ['ŢARA Ţăndărei Țânțăreni', 'tara tandarei tantareni'],
    ['Târgu Mureș', 'targu mures'],
  ])('folds %s to %s', (input, out) => expect(foldDiacritics(input)).toBe(out));

  it('picks the matching current owner without the share', () => {
    expect(matchingOwner('ŞTEFĂNESCU ION (1/2); POPESCU MARIA (1/2)', 'popescu')).toBe('POPESCU MARIA');
    expect(matchingOwner('ŞTEFĂNESCU ION (1/2)', 'ștefănescu')).toBe('ŞTEFĂNESCU ION');
    expect(matchingOwner('POPESCU MARIA (1/1)', 'ionescu')).toBeNull();
  });

  it('makes file-system-safe slugs and escapes LIKE wildcards', () => {
    expect(slug('Cluj-Napoca')).toBe('cluj-napoca');
    expect(slug('Sânmartin / Probă')).toBe('sanmartin-proba');
    expect(escapeLike('10%_a')).toBe('10\\%\\_a');
  });
});

describe('geoportal redaction', () => {
  const e = { NR_CAD: '1', NR_CF: '2', ADRESA: 'x', PROPRIETARI: 'A (1/1)', INTRAVILAN: 'DA' };
  it('keeps everything for full scope, nulls personal keys for basic, none and no claim', () => {
    expect(redactEnrichment(e, viewerOf({ basicPanel: false, enrichmentScope: 'full' }))).toEqual(e);
    for (const scope of ['basic', 'none', null] as const) {
      expect(redactEnrichment(e, viewerOf({ basicPanel: false, enrichmentScope: scope }))).toEqual({ NR_CAD: '1', NR_CF: null, ADRESA: null, PROPRIETARI: null, INTRAVILAN: 'DA' });
    }
  });
});

describe('export file names say what is inside', () => {
  const row = (siruta: number, layer_id: string, uat_name: string | null) => ({ siruta, layer_id, uat_name });
  it.each([
    [[row(1, 'TERENURI_ACTIVE', 'Cluj-Napoca'), row(1, 'TERENURI_ACTIVE', 'Cluj-Napoca')], 'gpkg', 'parcele_cluj-napoca_2.gpkg'],
    [[row(1, 'CLADIRI_ACTIVE', 'Florești')], 'dxf', 'cladiri_floresti_1.dxf'],
    [[row(1, 'TERENURI_ACTIVE', 'A'), row(2, 'TERENURI_ACTIVE', 'B')], 'geojson', 'parcele_2-uat_2.geojson'],
    [[row(7, 'TERENURI_ACTIVE', null), row(7, 'CLADIRI_ACTIVE', null)], 'gpkg', 'obiecte_uat-7_2.gpkg'],
  ])('%j as %s → %s', (rows, ext, name) => expect(exportFileName(rows, ext)).toBe(name));
});

describe('CF extract UI state', () => {
  const now = new Date('2026-03-01T00:00:00Z');
  it.each([
    ['pending', null, 'processing'],
    ['downloading', null, 'processing'],
    ['completed', new Date('2026-03-20T00:00:00Z'), 'valid'],
    ['completed', new Date('2026-02-20T00:00:00Z'), 'expired'],
    ['failed', null, 'failed'],
  ] as const)('%s expiring %s is %s', (status, expires, state) => expect(uiState(status, expires, now)).toBe(state));
});

describe('legacyWriteGate (spec 5.9)', () => {
  const req = (useCentralApi: boolean) => ({ auth: { useCentralApi } }) as unknown as Request;
  it('answers 410 gone_central_api to central-API users and lets legacy users through', () => {
    expect(() => legacyWriteGate(req(false))).not.toThrow();
    let caught: unknown;
    try {
      legacyWriteGate(req(true));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(410);
    expect((caught as AppError).code).toBe('gone_central_api');
  });
});
