/**
 * Names and header values of the DWG tools that the browser needs too (no Node imports): the
 * AutoCAD release of a version magic, the X-Dxf-Entity-Types header format and the DXF's file name.
 */

/** AutoCAD release names of the DWG version magics LibreDWG reads. */
const RELEASES: Record<string, string> = {
  AC1012: 'R13', AC1014: 'R14', AC1015: 'R2000', AC1018: 'R2004', AC1021: 'R2007',
  AC1024: 'R2010', AC1027: 'R2013', AC1032: 'R2018',
};

export function dwgRelease(version: string): string | undefined {
  return RELEASES[version];
}

/** `LINE=3;CIRCLE=1` (sorted by count, then name): the value of the X-Dxf-Entity-Types header. */
export function formatEntityTypes(byType: Record<string, number>): string {
  return Object.entries(byType)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([t, n]) => `${t}=${n}`)
    .join(';');
}

export function parseEntityTypes(header: string | null | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(';')) {
    const [t, n] = part.split('=');
    if (t && n && /^\d+$/.test(n)) out[t] = Number(n);
  }
  return out;
}

/** `plan.dwg` → `plan.dxf` (any other name gets `.dxf` appended). */
export function dxfFileName(dwgName: string): string {
  const base = dwgName.replace(/\.dwg$/i, '');
  return `${base || 'desen'}.dxf`;
}
