/**
 * Registry numbers (spec 2.7, 9.3; CONTRACT.md 3). Three formats are read, one is written:
 *   current  `B-2026-00042`       company letter, year, 5-digit sequence (shared by both directions)
 *   old      `BTG-2024-IN-00042`  three-letter company code and a direction segment
 *   legacy   `42/2023`            sequence/year; the company is the entry's
 * The database trigger of migration 017 (f_registry_number_parts) applies the same rules, so the
 * numbering query counts every format; this module is its TypeScript twin for the UI and checks.
 */
export const COMPANIES = ['B', 'U', 'S', 'G'] as const;
export type RegistryCompany = (typeof COMPANIES)[number];
export const DIRECTIONS = ['intrare', 'iesire'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Three-letter codes of the old format (CONTRACT.md 3). */
export const OLD_COMPANY_CODES: Record<string, RegistryCompany> = { BTG: 'B', URB: 'U', STD: 'S', GRP: 'G' };

export type NumberFormat = 'current' | 'old' | 'legacy';

export interface ParsedNumber {
  format: NumberFormat;
  company: RegistryCompany | null;
  year: number;
  sequence: number;
  /** Old format only. */
  direction?: Direction;
}

/** Digits of the sequence in the current format. */
export const SEQUENCE_DIGITS = 5;

const CURRENT_RE = /^([BUSG])-(\d{4})-(\d{1,9})$/;
const OLD_RE = /^(BTG|URB|STD|GRP)-(\d{4})-(IN|OUT)-(\d{1,9})$/i;
const LEGACY_RE = /^(\d{1,9})\s*\/\s*(\d{4})$/;

/** Null when the text is in none of the three formats. `entryCompany` fills the legacy format's company. */
export function parseRegistryNumber(text: string, entryCompany: RegistryCompany | null = null): ParsedNumber | null {
  const s = text.trim();
  let m = CURRENT_RE.exec(s);
  if (m) return { format: 'current', company: m[1] as RegistryCompany, year: Number(m[2]), sequence: Number(m[3]) };
  m = OLD_RE.exec(s);
  if (m) {
    return {
      format: 'old',
      company: OLD_COMPANY_CODES[m[1].toUpperCase()],
      year: Number(m[2]),
      sequence: Number(m[4]),
      direction: m[3].toUpperCase() === 'IN' ? 'intrare' : 'iesire',
    };
  }
  m = LEGACY_RE.exec(s);
  if (m) return { format: 'legacy', company: entryCompany, year: Number(m[2]), sequence: Number(m[1]) };
  return null;
}

/** The only format the service writes. */
export function formatRegistryNumber(company: RegistryCompany, year: number, sequence: number): string {
  return `${company}-${year}-${String(sequence).padStart(SEQUENCE_DIGITS, '0')}`;
}

/** The next sequence of a company's year: the highest actually used plus one (spec 4.5 rule 1). */
export function nextSequence(usedSequences: Iterable<number>): number {
  let max = 0;
  for (const s of usedSequences) if (s > max) max = s;
  return max + 1;
}
