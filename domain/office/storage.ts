/**
 * Key-value storage (spec 4.6, CONTRACT.md sections 4 and 6 "storage"): namespaces of JSON records
 * the firms' tools keep here, each owned by a company or by one user. An export streams a
 * namespace batch by batch (records up to 25 MB each); a lightweight one replaces big embedded
 * payloads (base64 files and images) by a marker so a listing stays small.
 */
import type pg from 'pg';
import { withTransaction } from '../db/pool';
import { AppError, errors } from '../errors';
import { formatBytes } from '../text/bytes';
import { GROUP_COMPANY } from './rules';

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

/** Who is asking: the user and their company (none: no shared namespace). */
export interface StorageCaller {
  userId: string;
  company: string | null;
}

/** What a request addresses: its company's shared namespace (another company's: G only) or the caller's own. */
export interface StorageAddress {
  scope: 'company' | 'user';
  company?: string;
}

type Db = pg.Pool | pg.PoolClient | pg.Client;

/** The companies holding records under a namespace name (normally one), by letter. */
async function holdersOf(db: Db, namespace: string): Promise<string[]> {
  const r = await db.query<{ owner: string }>(
    `SELECT DISTINCT owner FROM storage_items WHERE namespace = $1 AND owner LIKE 'company:%' ORDER BY owner`,
    [namespace],
  );
  return r.rows.map((row) => row.owner.slice('company:'.length));
}

const noSuchNamespace = () => errors.notFound('Spațiul de stocare nu există.');

/**
 * The owner a request reaches (CONTRACT.md 6: a namespace belongs to the caller's company, the
 * group company G reads all, another company's namespace is 404). A namespace name belongs to the
 * company that holds it: anyone else's request for it is 404, revealing nothing; a name nobody
 * holds is the caller's company's (empty until written). G reaches the company holding the name
 * (its own first), or any company's with `company=`. An account without a company has no shared
 * namespace (403, as in the vault); `scope=user` is the caller's own whatever the name.
 */
export async function storageOwner(db: Db, caller: StorageCaller, namespace: string, at: StorageAddress): Promise<StorageOwner> {
  if (at.scope === 'user') {
    if (at.company !== undefined) throw errors.badRequest('Parametrul company nu se folosește cu scope=user.', [{ field: 'company', problem: 'doar cu scope=company' }]);
    return userOwner(caller.userId);
  }
  if (!caller.company) throw errors.forbidden('Contul nu aparține unei firme: folosiți spațiul personal (scope=user).');
  const isGroup = caller.company === GROUP_COMPANY;
  if (at.company !== undefined && at.company !== caller.company && !isGroup) throw noSuchNamespace();
  const holders = await holdersOf(db, namespace);
  const wanted = at.company ?? caller.company;
  if (holders.length === 0 || holders.includes(wanted)) return companyOwner(wanted);
  if (isGroup && at.company === undefined) return companyOwner(holders[0]);
  throw noSuchNamespace();
}

/** Whose quota a record counts against: its company, or for a user's own the user's company (else the user). */
function quotaHolder(owner: StorageOwner, caller: StorageCaller): string {
  return owner.startsWith('user:') && caller.company ? companyOwner(caller.company) : owner;
}

/** CONTRACT.md 6: 413 `storage_quota_exceeded` with `{used, quota}` at the top level of the body. */
export function quotaExceeded(used: number, quota: number): AppError {
  return new AppError(413, 'storage_quota_exceeded', `Spațiul de stocare al firmei este plin: ${formatBytes(used)} folosiți din ${formatBytes(quota)}.`, {
    hint: 'Ștergeți înregistrări de care nu mai aveți nevoie sau cereți administratorului o cotă mai mare (STORAGE_QUOTA_BYTES).',
    extra: { used, quota },
  });
}

/** Bytes a company's values take (its quota's `used`): one row of the counter the trigger keeps. */
export async function storageUsed(db: Db, company: string): Promise<number> {
  const r = await db.query<{ used: string }>(`SELECT used_bytes::text AS used FROM storage_usage WHERE holder = $1`, [companyOwner(company)]);
  return Number(r.rows[0]?.used ?? 0);
}

/**
 * Writes one record, its value given as compact JSON text in UTF-8, whose length is its size: sent
 * to PostgreSQL as a binary `text` parameter and cast to jsonb there, so the value is never
 * rebuilt, serialised or encoded again here. In one transaction: the namespace
 * name is locked (two companies cannot both take a new name), the owner resolved, the holder's
 * counter locked and the quota checked against what the write adds (an overwrite frees the old
 * value's bytes first); past the quota 413 and nothing is written.
 */
export async function putItem(
  db: pg.Pool,
  caller: StorageCaller,
  at: StorageAddress,
  item: { namespace: string; key: string; json: Buffer },
  quota: number,
): Promise<{ created: boolean }> {
  return withTransaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('storage-namespace'), hashtext($1))`, [item.namespace]);
    const owner = await storageOwner(tx, caller, item.namespace, at);
    const holder = quotaHolder(owner, caller);
    await tx.query(`INSERT INTO storage_usage (holder) VALUES ($1) ON CONFLICT (holder) DO NOTHING`, [holder]);
    const usage = await tx.query<{ used: string }>(`SELECT used_bytes::text AS used FROM storage_usage WHERE holder = $1 FOR UPDATE`, [holder]);
    const used = Number(usage.rows[0].used);
    const old = await tx.query<{ size: string; holder: string }>(
      `SELECT size_bytes::text AS size, quota_holder AS holder FROM storage_items WHERE owner = $1 AND namespace = $2 AND key = $3 FOR UPDATE`,
      [owner, item.namespace, item.key],
    );
    const freed = old.rows[0]?.holder === holder ? Number(old.rows[0].size) : 0;
    const size = item.json.length;
    if (used - freed + size > quota) throw quotaExceeded(used, quota);
    await tx.query(
      `INSERT INTO storage_items (owner, namespace, key, value, size_bytes, quota_holder) VALUES ($1, $2, $3, $4::text::jsonb, $5, $6)
         ON CONFLICT (owner, namespace, key) DO UPDATE SET value = EXCLUDED.value, size_bytes = EXCLUDED.size_bytes, quota_holder = EXCLUDED.quota_holder`,
      [owner, item.namespace, item.key, item.json, size, holder],
    );
    return { created: old.rows.length === 0 };
  }, db);
}

/** 404 `not_found` only when the record is absent; any other failure propagates as it is. */
export async function deleteItem(db: pg.Pool, owner: StorageOwner, namespace: string, key: string): Promise<void> {
  const r = await db.query(`DELETE FROM storage_items WHERE owner = $1 AND namespace = $2 AND key = $3`, [owner, namespace, key]);
  if (!r.rowCount) throw errors.notFound(`Înregistrarea „${key}” nu există în spațiul „${namespace}”.`);
}
