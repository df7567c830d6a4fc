/**
 * A page's search box and ids as its address brings them, read so a loader never hands
 * PostgreSQL what the API's schemas would have refused with a 400 (defineRoute refuses a NUL in
 * any value; a uuid column refuses anything but a UUID).
 */

/** The search text: trimmed and cut to `maxChars`; '' (no search) when it holds a NUL, which no text column can. */
export function searchText(raw: string | null | undefined, maxChars: number): string {
  const text = (raw ?? '').trim().slice(0, maxChars);
  return text.includes('\u0000') ? '' : text;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Is it a UUID as PostgreSQL's uuid type reads one (the canonical hyphenated form)? */
export function isUuid(text: string | null | undefined): text is string {
  return typeof text === 'string' && UUID_RE.test(text);
}
