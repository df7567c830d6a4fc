/** Romanian words of the pages: counted nouns and the labels of internal codes (shared with the API's messages and mails), and capitals. */
export { countOf } from '../../../domain/text/plural';
export { BACKUP_STATUS_LABELS, BACKUP_TYPE_LABELS, EXPORT_MODE_LABELS, EXTRACT_STATUS_LABELS, WEEKEND_STEP_LABELS, layerCategoryLabel, layerLabel, syncPhaseLabel } from '../../../domain/text/labels';

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
