/**
 * The land-use categories of the land book (categoria de folosință) as the portal abbreviates
 * them, with their Romanian names (issue 30: codes such as "CC" or "HB" meant nothing without a
 * legend). A code outside the list is shown as it is.
 */
export const LAND_USE_NAMES: Readonly<Record<string, string>> = {
  A: 'arabil',
  P: 'pășuni',
  F: 'fânețe',
  V: 'vii',
  VI: 'vii',
  L: 'livezi',
  PD: 'păduri și alte terenuri cu vegetație forestieră',
  HR: 'ape curgătoare',
  HB: 'ape stătătoare (lacuri, bălți)',
  CC: 'curți și construcții',
  DR: 'drumuri',
  CF: 'căi ferate',
  N: 'terenuri neproductive',
};

export function landUseName(code: string): string | null {
  return LAND_USE_NAMES[code.trim().toUpperCase()] ?? null;
}

/** "CC · curți și construcții", or the code alone when it is not in the list. */
export function landUseLabel(code: string): string {
  const name = landUseName(code);
  return name ? `${code} · ${name}` : code;
}

/** The codes of a CATEGORIE value ("A:200; CC:312.5") or of a list of categories, once each, in order. */
export function landUseCodes(value: string | readonly string[] | null | undefined): string[] {
  const parts = typeof value === 'string' ? value.split(';').map((p) => p.split(':')[0]) : [...(value ?? [])];
  return [...new Set(parts.map((p) => p.trim()).filter(Boolean))];
}
