/**
 * An integer from a query string's value, read as the API's schemas read one
 * (`z.coerce.number().int()` within bounds), so a page's loader never hands PostgreSQL a value
 * the API would have refused with a 400: null when there is none, `invalid` when it breaks the
 * rule (not a whole number, or outside [min, max]).
 */
export function intParam(raw: string | null | undefined, min: number, max: number): number | null | 'invalid' {
  if (raw === null || raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min && n <= max ? n : 'invalid';
}
