/** Romanian counted nouns (web/app/lib/words.ts). */
import { describe, expect, test } from '@jest/globals';
import { countOf } from '../../web/app/lib/words';

describe('countOf', () => {
  test('one in the singular, the rest in the plural, "de" from 20 on', () => {
    const n = (k: number) => countOf(k, 'înregistrare', 'înregistrări');
    expect(n(1)).toBe('1 înregistrare');
    expect(n(0)).toBe('0 înregistrări');
    expect(n(2)).toBe('2 înregistrări');
    expect(n(19)).toBe('19 înregistrări');
    expect(n(20)).toBe('20 de înregistrări');
    expect(n(101)).toBe('101 înregistrări');
    expect(n(120)).toBe('120 de înregistrări');
    expect(countOf(1, 'atașament', 'atașamente')).toBe('1 atașament');
    expect(countOf(3, 'atașament', 'atașamente')).toBe('3 atașamente');
  });
});
