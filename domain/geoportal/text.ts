/**
 * Pure text rules of the geoportal: the diacritic folding the UI and tests agree with the SQL
 * helper f_norm on, owner picking for search results, and file-name slugs for exports.
 */

import { foldDiacritics } from '../text/fold';

/**
 * The owner in `NAME (share); NAME (share)` (CONTRACT.md section 3) whose name matches the query,
 * without the share; null when none does (e.g. the match was in PROPRIETARI_VECHI only).
 */
export function matchingOwner(owners: string | null | undefined, query: string): string | null {
  if (!owners) return null;
  const q = foldDiacritics(query.trim());
  for (const part of owners.split(/;\s*/)) {
    const name = part.replace(/\s*\([^)]*\)\s*$/, '').trim();
    if (name && foldDiacritics(name).includes(q)) return name;
  }
  return null;
}

/** `Cluj-Napoca` → `cluj-napoca`, `Târgu Mureș` → `targu-mures`; safe in any file system. */
export function slug(text: string): string {
  const s = foldDiacritics(text)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 60) || 'fara-nume';
}
