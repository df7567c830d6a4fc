/**
 * The one diacritic fold (JS twin of the store's SQL `f_norm`, which uses unaccent): lower case
 * without diacritics. NFD splits both Romanian spellings (ş/ţ with cedilla U+0327 and ș/ț with
 * comma below U+0326), ă â î and the Hungarian accents into a base letter plus a combining mark,
 * so every spelling folds to the same plain letters. Pure: the UI bundles it too.
 */
export function foldDiacritics(text: string): string {
  return stripDiacritics(text).toLowerCase();
}

/** The same fold keeping the case: `Brașov` → `Brasov` (ASCII file names, header values). */
export function stripDiacritics(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/** foldDiacritics with whitespace collapsed and trimmed: the form names are compared in. */
export function foldName(text: string): string {
  return foldDiacritics(text).replace(/\s+/g, ' ').trim();
}
