/**
 * Key-value storage (spec 4.6, CONTRACT.md section 4 "storage"; docs/office.md):
 *   GET    /api/storage ?namespace=&lightweight=  → {namespace, items:[{key, value}]}
 *   PUT    /api/storage {namespace, key, value}   → {namespace, key, created}
 *   DELETE /api/storage ?namespace=&key=          → {deleted:true}; 404 only when absent
 * Bodies up to the API's 25 MB JSON limit (413 above it). POST /api/storage/migrate-blobs
 * belongs to the registry area.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute, reply } from '../http/route';
import { getPrisma } from '../../domain/db/prisma';
import { deleteItem, exportNamespace, putItem } from '../../domain/office/storage';

const Namespace = z.string().trim().min(1).max(200).openapi({ example: 'registratura' });
const Key = z.string().min(1).max(500).openapi({ example: 'entry-42' });
const Flag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');

const ExportQuery = z.object({
  namespace: Namespace,
  lightweight: Flag.openapi({ description: 'true: strings over 1 KB under data, fileData, imageUrl become `__stripped__:<bytes>`' }),
});
const ExportBody = z.object({
  namespace: z.string(),
  items: z.array(z.object({ key: z.string(), value: z.unknown() })),
});
const PutBody = z
  .object({ namespace: Namespace, key: Key, value: z.unknown().openapi({ description: 'Any JSON value' }) })
  .refine((b) => b.value !== undefined, { message: 'Câmpul value este obligatoriu.', path: ['value'] });
const DeleteQuery = z.object({ namespace: Namespace, key: Key });

export function registerStorageRoutes(router: Router): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/storage',
      summary: 'Export a storage namespace (spec 4.6)',
      tags: ['storage'],
      auth: 'session',
      query: ExportQuery,
      response: { description: 'Every record of the namespace, ordered by key', schema: ExportBody },
    },
    ({ query }) => exportNamespace(getPrisma(), query.namespace, query.lightweight),
  );

  defineRoute(
    router,
    {
      method: 'put',
      path: '/api/storage',
      summary: 'Write one storage record',
      tags: ['storage'],
      auth: 'session',
      body: PutBody,
      response: { description: 'Written', schema: z.object({ namespace: z.string(), key: z.string(), created: z.boolean() }) },
      failures: { 413: 'Body over 25 MB' },
    },
    async ({ body }) => {
      const { created } = await putItem(getPrisma(), body.namespace, body.key, body.value);
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
      failures: { 404: 'No such record' },
    },
    async ({ query }) => {
      await deleteItem(getPrisma(), query.namespace, query.key);
      return reply(200, { deleted: true });
    },
  );
}
