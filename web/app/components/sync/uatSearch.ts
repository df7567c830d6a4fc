/**
 * The UAT picker's matching (browser and server alike): diacritic- and case-insensitive, on the
 * name, the county or the SIRUTA code; names that start with the query first; 12 results.
 */
import { foldName } from '../../../../domain/text/fold';

export const UAT_RESULTS = 12;
export const UAT_DEBOUNCE_MS = 600;

export interface UatChoice {
  siruta: number;
  name: string;
  county: string | null;
  workspacePk?: number | null;
  featureCount?: number;
  /** Parcels in the local store, when the server counted them (a page's preselected UAT). */
  parcels?: number;
}


export function searchUats(uats: readonly UatChoice[], query: string, limit = UAT_RESULTS): UatChoice[] {
  const q = foldName(query);
  if (!q) return [];
  const digits = /^\d+$/.test(q);
  const scored: Array<[number, UatChoice]> = [];
  for (const u of uats) {
    let score = -1;
    if (digits) {
      if (String(u.siruta).startsWith(q)) score = 0;
    } else {
      const name = foldName(u.name);
      const county = u.county ? foldName(u.county) : '';
      if (name === q) score = 0;
      else if (name.startsWith(q)) score = 1;
      else if (name.split(/[ -]/).some((w) => w.startsWith(q))) score = 2;
      else if (name.includes(q)) score = 3;
      else if (county.startsWith(q)) score = 4;
    }
    if (score >= 0) scored.push([score, u]);
  }
  scored.sort((a, b) => a[0] - b[0] || (b[1].featureCount ?? 0) - (a[1].featureCount ?? 0) || a[1].name.localeCompare(b[1].name, 'ro'));
  return scored.slice(0, limit).map(([, u]) => u);
}
