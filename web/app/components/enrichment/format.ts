/** Romanian number formats of the parcel-sync pages. */
const nf = new Intl.NumberFormat('ro-RO', { maximumFractionDigits: 0 });

export const formatInt = (n: number) => nf.format(n);

/** m² below one hectare, hectares above. */
export function formatArea(m2: number | null | undefined): string {
  if (m2 === null || m2 === undefined) return '—';
  if (m2 >= 10_000) return `${new Intl.NumberFormat('ro-RO', { maximumFractionDigits: 2 }).format(m2 / 10_000)} ha`;
  return `${nf.format(m2)} m²`;
}
