/** Romanian counted nouns (web/app/lib/words.ts). */
import { describe, expect, test } from '@jest/globals';
import { countOf, nameCase, sentenceCase } from '../../web/app/lib/words';
import { formatDay } from '../../web/app/lib/dates';

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

describe('capitals in ordinary writing (issue 30: RGI)', () => {
  test('a state in capitals reads as a sentence; mixed case is kept', () => {
    expect(sentenceCase('SOLUȚIONATĂ')).toBe('Soluționată');
    expect(sentenceCase('ÎN CURS DE SOLUȚIONARE')).toBe('În curs de soluționare');
    expect(sentenceCase('În lucru')).toBe('În lucru');
  });

  test('a name in capitals reads as a name; mixed case is kept', () => {
    expect(nameCase('POPESCU-TOMA ION')).toBe('Popescu-Toma Ion');
    expect(nameCase('ȘTEFĂNESCU ANIȘOARA')).toBe('Ștefănescu Anișoara');
    expect(nameCase('Sfântu Gheorghe')).toBe('Sfântu Gheorghe');
  });
});

describe('calendar days', () => {
  test('an ISO day reads as dd.mm.yyyy, the same day whatever the zone', () => {
    expect(formatDay('2026-03-10')).toBe('10.03.2026');
    expect(formatDay('2026-12-31T23:30:00Z')).toBe('01.01.2027');
    expect(formatDay(null)).toBe('—');
  });
});
