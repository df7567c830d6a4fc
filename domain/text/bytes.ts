/** Romanian byte sizes ("1,5 MB", "1 GB"): pages and API messages alike. */
const bytesFormat = new Intl.NumberFormat('ro-RO', { maximumFractionDigits: 1 });

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${bytesFormat.format(n / 1024)} KB`;
  if (n < 1024 ** 3) return `${bytesFormat.format(n / 1024 ** 2)} MB`;
  return `${bytesFormat.format(n / 1024 ** 3)} GB`;
}
