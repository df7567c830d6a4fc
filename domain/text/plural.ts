/**
 * Romanian counted nouns, the one helper for every count a person reads (issue 30: "1
 * înregistrări", "1 atașament(e)"): one → the singular, otherwise the plural, with "de" from 20
 * on as Romanian says it ("20 de înregistrări", "101 înregistrări", "120 de înregistrări").
 * In `domain` so API messages use it too; pages take it from web/app/lib/words.ts.
 */
const nf = new Intl.NumberFormat('ro-RO');

export function countOf(n: number, one: string, many: string): string {
  if (n === 1) return `1 ${one}`;
  const rest = Math.abs(n) % 100;
  const de = n !== 0 && (rest === 0 || rest >= 20);
  return `${nf.format(n)} ${de ? 'de ' : ''}${many}`;
}
