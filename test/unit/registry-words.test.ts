/** The registry page's history lines (web/app/lib/registryWords.ts): what a person reads, no internal ids. */
import { describe, expect, test } from '@jest/globals';
import { describeChange } from '../../web/app/lib/registryWords';

describe('registry history lines', () => {
  const id = '3f2c1a9e-5b7d-4c2e-9a1f-0e6d8b4c2a10';

  test('an added or removed attachment is its file name and size, not its id', () => {
    expect(describeChange({ field: 'attachments', before: null, after: { id, name: 'contract.pdf', size: 12_288 } })).toBe('atașamente: — → contract.pdf (12 KB)');
    expect(describeChange({ field: 'attachments', before: { id, name: 'aviz.pdf', size: 300 }, after: null })).toBe('atașamente: aviz.pdf (300 B) → —');
  });

  test('plain fields and the tracking block read as values', () => {
    expect(describeChange({ field: 'subject', before: 'Cerere', after: 'Cerere CU' })).toBe('subiect: Cerere → Cerere CU');
    expect(describeChange({ field: 'date', before: null, after: '2051-03-10' })).toBe('data: — → 10.03.2051');
    expect(describeChange({ field: 'direction', before: 'intrare', after: 'iesire' })).toBe('direcție: intrare → ieșire');
    const line = describeChange({ field: 'tracking', before: null, after: { authority: 'Primăria Brașov', requestNumber: 'CU-7', petitionerName: null } });
    expect(line).toBe('urmărire: — → Primăria Brașov, CU-7');
  });
});
