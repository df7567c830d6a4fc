/**
 * The custom search attributes the dev server registers (scripts/stack/services.ts): every job
 * workflow carries JobKind (its id's kind) and, when it concerns one UAT, Siruta, so running
 * jobs can be listed ("is a sync of this UAT already running?", "may the portal disconnect?").
 * Importable from workflow code (no I/O).
 */
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';

export const JOB_KIND = defineSearchAttributeKey('JobKind', SearchAttributeType.KEYWORD);
export const SIRUTA = defineSearchAttributeKey('Siruta', SearchAttributeType.INT);

export function jobSearchAttributes(kind: string, siruta?: number): TypedSearchAttributes {
  const pairs: SearchAttributePair[] = [{ key: JOB_KIND, value: kind }];
  if (siruta !== undefined) pairs.push({ key: SIRUTA, value: siruta });
  return new TypedSearchAttributes(pairs);
}
