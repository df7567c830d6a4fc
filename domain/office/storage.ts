/**
 * Key-value storage (spec 4.6, CONTRACT.md sections 4 and 6 "storage"): namespaces of JSON records
 * the firms' tools keep here, each owned by a company or by one user. An export streams a
 * namespace batch by batch (records up to 25 MB each); a lightweight one replaces big embedded
 * payloads (base64 files and images) by a marker so a listing stays small.
 */
import type pg from 'pg';
import { Prisma, type PrismaClient } from '../db/prisma';
import { errors } from '../errors';

/** Spec 8 "lightweight strip": strings over 1 KB. */
export const LIGHTWEIGHT_STRIP_BYTES = 1024;
/** Spec 4.6: the keys whose big strings a lightweight export strips, at any depth. */
export const STRIPPED_KEYS: ReadonlySet<string> = new Set(['data', 'fileData', 'imageUrl']);
export const STRIPPED_PREFIX = '__stripped__:';

/**
 * A copy of `value` where every string longer than 1 KB (UTF-8 bytes) held by one of the stripped
 * keys, at any depth (directly or in an array under such a key), becomes `__stripped__:<bytes>`.
 * A string is judged by the key that holds it: an object under `data` keeps its other keys' strings.
 */
export function stripLightweight(value: unknown): unknown {
  const walk = (v: unknown, underStrippedKey: boolean): unknown => {
    if (typeof v === 'string') {
      if (!underStrippedKey) return v;
      const bytes = Buffer.byteLength(v, 'utf8');
      return bytes > LIGHTWEIGHT_STRIP_BYTES ? `${STRIPPED_PREFIX}${bytes}` : v;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, underStrippedKey));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, STRIPPED_KEYS.has(k));
      return out;
    }
    return v;
  };
  return walk(value, false);
}

/**
 * Whose a namespace is (issue 25; docs/office.md "Scopes"): a company's shared one (`company:B`,
 * the spec's namespaces: what the firm's tools keep for everyone) or one user's own
 * (`user:<id>`). The same namespace name under two owners is two namespaces.
 */
export type StorageOwner = `company:${string}` | `user:${string}`;
export const companyOwner = (company: string): StorageOwner => `company:${company}`;
export const userOwner = (userId: string): StorageOwner => `user:${userId}`;

/**
 * A batch of a streamed export is read with at most about this many stored bytes of values (at
 * least one record): records are up to 25 MB each, so the export holds a few of them in memory,
 * never a namespace.
 */
export const EXPORT_BATCH_BYTES = 8 * 1024 * 1024;
/** Keys listed per round trip while streaming. */
const KEY_PAGE = 500;

export interface StorageRow {
  key: string;
  /** The record's value as JSON text, straight from PostgreSQL (not parsed unless stripped). */
  json: string;
}

/**
 * The records of one namespace in key order after `after`, at most `limit` (all without it),
 * read in batches of about EXPORT_BATCH_BYTES; stops between batches when `signal` aborts.
 */
export async function* namespaceRows(
  db: pg.Pool,
  owner: StorageOwner,
  namespace: string,
  opts: { after?: string; limit?: number; signal?: AbortSignal } = {},
): AsyncGenerator<StorageRow> {
  let after = opts.after ?? null;
  let left = opts.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0 && !opts.signal?.aborted) {
    // The stored (possibly compressed) size, read from the value's header without loading it.
    const keys = await db.query<{ key: string; size: number }>(
      `SELECT key, pg_column_size(value)::int AS size FROM storage_items
        WHERE owner = $1 AND namespace = $2 AND ($3::text IS NULL OR key > $3) ORDER BY key LIMIT $4`,
      [owner, namespace, after, Math.min(KEY_PAGE, left)],
    );
    if (keys.rows.length === 0) return;
    for (let i = 0; i < keys.rows.length && !opts.signal?.aborted; ) {
      const batch: string[] = [];
      let bytes = 0;
      while (i < keys.rows.length && (batch.length === 0 || bytes + keys.rows[i].size <= EXPORT_BATCH_BYTES)) {
        bytes += keys.rows[i].size;
        batch.push(keys.rows[i++].key);
      }
      const rows = await db.query<{ key: string; json: string }>(
        `SELECT key, value::text AS json FROM storage_items WHERE owner = $1 AND namespace = $2 AND key = ANY($3::text[]) ORDER BY key`,
        [owner, namespace, batch],
      );
      // A record deleted since the key listing is simply not there any more.
      for (const r of rows.rows) yield r;
    }
    left -= keys.rows.length;
    after = keys.rows[keys.rows.length - 1].key;
    if (keys.rows.length < KEY_PAGE) return;
  }
}

/** Whether the namespace has a record after `key` (the paged export's next cursor). */
export async function hasRowsAfter(db: pg.Pool, owner: StorageOwner, namespace: string, key: string): Promise<boolean> {
  const r = await db.query(`SELECT 1 FROM storage_items WHERE owner = $1 AND namespace = $2 AND key > $3 LIMIT 1`, [owner, namespace, key]);
  return (r.rowCount ?? 0) > 0;
}

/** One exported item as JSON text: the stored text as it is, or re-serialised after the strip. */
export function itemJson(row: StorageRow, lightweight: boolean): string {
  const value = lightweight ? JSON.stringify(stripLightweight(JSON.parse(row.json))) : row.json;
  return `{"key":${JSON.stringify(row.key)},"value":${value}}`;
}

/** JSON null is a value of its own in jsonb; Prisma wants it spelled as JsonNull. */
function jsonValue(value: unknown): Prisma.InputJsonValue | typeof Prisma.JsonNull {
  return value === null ? Prisma.JsonNull : (value as Prisma.InputJsonValue);
}

export async function putItem(
  prisma: PrismaClient,
  owner: StorageOwner,
  namespace: string,
  key: string,
  value: unknown,
): Promise<{ created: boolean }> {
  const v = jsonValue(value);
  const id = { owner_namespace_key: { owner, namespace, key } };
  const before = await prisma.storageItem.findUnique({ where: id, select: { key: true } });
  await prisma.storageItem.upsert({ where: id, create: { owner, namespace, key, value: v }, update: { value: v } });
  return { created: !before };
}

/** 404 `not_found` only when the record is absent; any other failure propagates as it is. */
export async function deleteItem(prisma: PrismaClient, owner: StorageOwner, namespace: string, key: string): Promise<void> {
  const { count } = await prisma.storageItem.deleteMany({ where: { owner, namespace, key } });
  if (count === 0) throw errors.notFound(`Înregistrarea „${key}” nu există în spațiul „${namespace}”.`);
}
