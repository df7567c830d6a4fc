/**
 * Key-value storage (spec 4.6, CONTRACT.md sections 4 and 6 "storage"; docs/office.md):
 *   GET    /api/storage ?namespace=&lightweight=&scope=&company=&limit=&cursor=
 *                                                  → {namespace, items:[{key, value}], nextCursor?}
 *   PUT    /api/storage {namespace, key, value, scope?, company?} → {namespace, key, created}
 *   DELETE /api/storage ?namespace=&key=&scope=&company=          → {deleted:true}; 404 only when absent
 * A namespace is the caller's company's (the default, the spec's shape unchanged: the firm's
 * shared values) or, with `scope=user`, the caller's own. A name another company holds is not
 * there for the caller (404); the group company G reads the company holding it, or any with
 * `company=` (domain/office/storage.ts `storageOwner`). The export is streamed batch by batch
 * (records up to 25 MB each), whole by default or a page with `limit` and `cursor`. Bodies up to
 * the API's 25 MB JSON limit (413 above it), a large value parsed off the event loop and stored
 * as its JSON text; a company's values up to its quota (413 `storage_quota_exceeded`).
 * POST /api/storage/migrate-blobs belongs to the registry area.
 */
import type { Response, Router } from 'express';
import { z } from 'zod';
import type { SessionContext } from '../../domain/auth/rules';
import { defineRoute, reply } from '../http/route';
import { clientGone } from '../http/download';
import { childLogger } from '../../domain/log';
import { config } from '../../domain/config';
import { COMPANIES } from '../../domain/office/rules';
import type { OfficeService, StorageCaller } from '../../domain/office/service';
import { jsonUtf8 } from '../http/rawJson';
import { drainedOrClosed } from '../http/jsonResponse';

const log = childLogger('storage');

const Namespace = z.string().trim().min(1).max(200).openapi({ example: 'registratura' });
const Key = z.string().min(1).max(500).openapi({ example: 'entry-42' });
const Flag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');
const Owner = {
  scope: z
    .enum(['company', 'user'])
    .default('company')
    .openapi({ description: 'company (default): the firm’s shared namespace; user: the caller’s own' }),
  company: z
    .enum(COMPANIES)
    .optional()
    .openapi({ description: 'Another company’s shared namespace: only the group company G (404 for anyone else)' }),
};
/** Cursor of the next page: the last key answered, base64url (opaque to clients). */
const Cursor = z
  .string()
  .max(1000)
  .transform((v, ctx) => {
    const key = Buffer.from(v, 'base64url').toString('utf8');
    if (!key || Buffer.from(key, 'utf8').toString('base64url') !== v) {
      ctx.addIssue({ code: 'custom', message: 'Cursorul nu este valid; folosiți nextCursor din pagina anterioară.' });
      return z.NEVER;
    }
    return key;
  });

const ExportQuery = z.object({
  namespace: Namespace,
  lightweight: Flag.openapi({ description: 'true: strings over 1 KB under data, fileData, imageUrl become `__stripped__:<bytes>`' }),
  ...Owner,
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({ description: 'A page of at most this many records (default: the whole namespace, streamed)' }),
  cursor: Cursor.optional().openapi({ description: 'nextCursor of the previous page' }),
});
const ExportBody = z.object({
  namespace: z.string(),
  items: z.array(z.object({ key: z.string(), value: z.unknown() })),
  nextCursor: z.string().nullable().optional().openapi({ description: 'With limit: the next page’s cursor, null after the last page' }),
});
const PutBody = z
  .object({ namespace: Namespace, key: Key, value: z.unknown().openapi({ description: 'Any JSON value' }), ...Owner })
  .refine((b) => b.value !== undefined, { message: 'Câmpul value este obligatoriu.', path: ['value'] });
const DeleteQuery = z.object({ namespace: Namespace, key: Key, ...Owner });

/** The caller as the storage rules see them. */
function callerOf(auth: SessionContext | undefined): StorageCaller {
  return { userId: auth!.user.id, company: auth!.user.company };
}

async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await drainedOrClosed(res);
}

export interface StorageRouteOptions {
  /** Bytes of values one company keeps at most (default config.office.storageQuotaBytes). */
  quotaBytes?: number;
}

export function registerStorageRoutes(router: Router, office: OfficeService, options: StorageRouteOptions = {}): void {
  const quota = () => options.quotaBytes ?? config.office.storageQuotaBytes;
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/storage',
      summary: 'Export a storage namespace (spec 4.6), streamed; a page with limit and cursor',
      tags: ['storage'],
      auth: 'session',
      query: ExportQuery,
      response: { description: 'The namespace’s records (or one page), ordered by key', schema: ExportBody },
      failures: { 403: 'scope=company for an account without a company', 404: 'Another company’s namespace' },
    },
    async ({ query, auth, res }) => {
      const owner = await office.storageOwner(callerOf(auth), query.namespace, query);
      const signal = clientGone(res);
      const rows = office.namespaceRows(owner, query.namespace, { after: query.cursor, limit: query.limit, signal });
      // The first batch before the status: a failure there is still an ordinary error answer.
      let next = await rows.next();
      res.status(200).set({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'private, no-store' });
      try {
        await write(res, `{"namespace":${JSON.stringify(query.namespace)},"items":[`);
        let lastKey: string | undefined;
        let count = 0;
        for (; !next.done; next = await rows.next()) {
          await write(res, (count++ ? ',' : '') + office.itemJson(next.value, query.lightweight));
          lastKey = next.value.key;
          if (signal.aborted || res.destroyed) return;
        }
        let tail = ']';
        if (query.limit !== undefined) {
          const more = count === query.limit && lastKey !== undefined && (await office.hasRowsAfter(owner, query.namespace, lastKey));
          tail += `,"nextCursor":${more ? JSON.stringify(Buffer.from(lastKey!, 'utf8').toString('base64url')) : 'null'}`;
        }
        res.end(`${tail}}`);
      } catch (err) {
        // Half an answer is out: the client must see a broken response, not a complete-looking one.
        log.error({ err: (err as Error).message, namespace: query.namespace }, 'storage export failed mid-stream');
        res.destroy(err as Error);
      } finally {
        // An export left early lets go of its batch at once, not when the collector finds it.
        await rows.return(undefined);
      }
    },
  );

  defineRoute(
    router,
    {
      method: 'put',
      path: '/api/storage',
      summary: 'Write one storage record (the caller’s company namespace, or scope=user for the caller’s own)',
      tags: ['storage'],
      auth: 'session',
      body: PutBody,
      // A large value reaches the handler as the UTF-8 JSON text the worker thread made: stored as it is.
      rawJson: ['value'],
      response: { description: 'Written', schema: z.object({ namespace: z.string(), key: z.string(), created: z.boolean() }) },
      failures: {
        403: 'scope=company for an account without a company',
        404: 'Another company’s namespace',
        413: 'Body over 25 MB (`payload_too_large`), or the company’s storage quota would be passed (`storage_quota_exceeded`, with `used` and `quota` in bytes)',
        429: 'The caller (or everyone) already has the most large bodies in work',
      },
    },
    async ({ body, auth }) => {
      const item = { namespace: body.namespace, key: body.key, json: jsonUtf8(body.value) };
      const { created } = await office.putItem(callerOf(auth), body, item, quota());
      return { namespace: body.namespace, key: body.key, created };
    },
  );

  defineRoute(
    router,
    {
      method: 'delete',
      path: '/api/storage',
      summary: 'Delete one storage record',
      tags: ['storage'],
      auth: 'session',
      query: DeleteQuery,
      response: { description: 'Deleted', schema: z.object({ deleted: z.literal(true) }) },
      failures: { 403: 'scope=company for an account without a company', 404: 'No such record (or another company’s namespace)' },
    },
    async ({ query, auth }) => {
      await office.deleteItem(await office.storageOwner(callerOf(auth), query.namespace, query), query.namespace, query.key);
      return reply(200, { deleted: true });
    },
  );
}
