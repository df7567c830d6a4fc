/**
 * A SIRUTA code as every door takes one: a positive integer that fits PostgreSQL's `int` (int4),
 * the column type of siruta and workspace_pk. The API's schemas (api/http/schemas.ts) and the
 * pages' loaders read it by this one rule, so a value the API refuses with a 400 never reaches a
 * query from a page either (where it was a 500 from int4's range).
 */
import { intParam } from '../text/intParam';

export const PG_INT_MAX = 2_147_483_647;

/** The code in a query string's value; null when there is none, `invalid` when it breaks the rule. */
export const sirutaParam = (raw: string | null | undefined): number | null | 'invalid' => intParam(raw, 1, PG_INT_MAX);

/** What a page says of a SIRUTA it cannot read. */
export const INVALID_SIRUTA_MESSAGE = 'Codul SIRUTA din adresă nu este valid: un număr întreg pozitiv, ca 42682.';
