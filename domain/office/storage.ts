/**
 * Key-value storage (spec 4.6, CONTRACT.md section 4 "storage"): namespaces of JSON records the
 * firms' tools keep here. A lightweight export replaces big embedded payloads (base64 files and
 * images) by a marker so a listing stays small.
 */
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

export interface StorageItemOut {
  key: string;
  value: unknown;
}

export async function exportNamespace(
  prisma: PrismaClient,
  namespace: string,
  lightweight: boolean,
): Promise<{ namespace: string; items: StorageItemOut[] }> {
  const rows = await prisma.storageItem.findMany({ where: { namespace }, orderBy: { key: 'asc' }, select: { key: true, value: true } });
  return {
    namespace,
    items: rows.map((r) => ({ key: r.key, value: lightweight ? stripLightweight(r.value) : r.value })),
  };
}

/** JSON null is a value of its own in jsonb; Prisma wants it spelled as JsonNull. */
function jsonValue(value: unknown): Prisma.InputJsonValue | typeof Prisma.JsonNull {
  return value === null ? Prisma.JsonNull : (value as Prisma.InputJsonValue);
}

export async function putItem(prisma: PrismaClient, namespace: string, key: string, value: unknown): Promise<{ created: boolean }> {
  const v = jsonValue(value);
  const before = await prisma.storageItem.findUnique({ where: { namespace_key: { namespace, key } }, select: { key: true } });
  await prisma.storageItem.upsert({
    where: { namespace_key: { namespace, key } },
    create: { namespace, key, value: v },
    update: { value: v },
  });
  return { created: !before };
}

/** 404 `not_found` only when the record is absent; any other failure propagates as it is. */
export async function deleteItem(prisma: PrismaClient, namespace: string, key: string): Promise<void> {
  const { count } = await prisma.storageItem.deleteMany({ where: { namespace, key } });
  if (count === 0) throw errors.notFound(`Înregistrarea „${key}” nu există în spațiul „${namespace}”.`);
}
