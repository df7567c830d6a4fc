/**
 * Request schemas shared by every router, so one input means one rule everywhere. Identifiers
 * that end up in an `integer` column are bounded to PostgreSQL's int4 range: a larger number is
 * the caller's bad input (400), not a database failure (500).
 */
import { z } from 'zod';

export const PG_INT_MAX = 2_147_483_647;

/** A positive id that fits an int4 column, from a query string or a JSON body. */
export const PositiveInt = z.coerce.number().int().positive().max(PG_INT_MAX);

/** SIRUTA code of a UAT. */
export const Siruta = PositiveInt.openapi({ description: 'SIRUTA code of the UAT', example: 42682 });
