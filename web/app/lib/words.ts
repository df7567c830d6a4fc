/**
 * Romanian counted nouns (issue 30: "1 înregistrări", "1 atașament(e)"): one → the singular,
 * otherwise the plural, with "de" from 20 on as Romanian says it ("20 de înregistrări",
 * "101 înregistrări", "120 de înregistrări").
 */
const nf = new Intl.NumberFormat('ro-RO');

export function countOf(n: number, one: string, many: string): string {
  if (n === 1) return `1 ${one}`;
  const rest = Math.abs(n) % 100;
  const de = n !== 0 && (rest === 0 || rest >= 20);
  return `${nf.format(n)} ${de ? 'de ' : ''}${many}`;
}

/**
 * "SOLUȚIONATĂ" → "Soluționată", "ÎN CURS DE SOLUȚIONARE" → "În curs de soluționare": the
 * portal's upper-case states in ordinary Romanian writing. Text already in mixed case is kept.
 */
export function sentenceCase(s: string): string {
  if (s !== s.toLocaleUpperCase('ro')) return s;
  const lower = s.toLocaleLowerCase('ro');
  return lower.charAt(0).toLocaleUpperCase('ro') + lower.slice(1);
}

/**
 * "POPESCU-TOMA ION" → "Popescu-Toma Ion": a person's or a place's name written in capitals, in
 * normal case (each word and each hyphenated part capitalised). Text already in mixed case is kept.
 */
export function nameCase(s: string): string {
  if (s !== s.toLocaleUpperCase('ro')) return s;
  return s.toLocaleLowerCase('ro').replace(/(^|[\s\-.(])(\p{L})/gu, (_m, sep: string, ch: string) => sep + ch.toLocaleUpperCase('ro'));
}
