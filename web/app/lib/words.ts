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
