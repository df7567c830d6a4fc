/**
 * The id schemas every route uses for the same things, so a bad value is a 400 with details
 * everywhere (never a 500 from PostgreSQL's int4 range) and the OpenAPI document describes it once.
 */
import { z } from 'zod';
// .openapi() on schemas: zod is extended there.
import './openapi';
import { PG_INT_MAX } from '../../domain/landreg/rules';

/** PostgreSQL `int` (int4), the column type of siruta and workspace_pk (the pages read SIRUTA by the same bound). */
export { PG_INT_MAX };

/** A positive id that fits an int4 column, from a query string or a JSON body. */
export const PositiveInt = z.coerce.number().int().positive().max(PG_INT_MAX);

/** SIRUTA code of a UAT: a positive integer within int4; query strings are coerced. */
export const Siruta = PositiveInt.openapi({ description: 'Codul SIRUTA al UAT-ului', example: 42682 });

/** Portal county id (workspacePk). */
export const WorkspacePk = PositiveInt.openapi({ description: 'Codul județului în portal (workspacePk)' });

/** A portal layer id such as TERENURI_ACTIVE (the same rule as domain/exports/layers.ts checkLayerId). */
export const LayerId = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'Identificatorul stratului nu este valid.')
  .openapi({ example: 'TERENURI_ACTIVE' });
