/**
 * Registry (registratura) routes (issue 17; spec 4.5, 4.6 migrate-blobs; CONTRACT.md 3, 4;
 * docs/registry.md):
 *   GET|POST        /api/registratura/entries                      list (company, year, direction, q, page, pageSize) / create
 *   GET|PUT|DELETE  /api/registratura/entries/:id                  one entry; PUT is partial; DELETE only of the last number (409)
 *   GET             /api/registratura/entries/:id/history          who changed what, oldest first
 *   POST            /api/registratura/entries/:id/attachments      multipart field `file` (500 MB, streamed to disk)
 *   GET|DELETE      /api/registratura/entries/:id/attachments/:attachmentId
 *   GET|POST        /api/registratura/debug-sequences              admin: counters vs actual maxima / reset and convert
 *   POST            /api/registratura/status-check                 bearer CRON_SECRET: batch check (a job, 202)
 *   POST            /api/registratura/status-check/single          {id}: check one entry now
 *   POST            /api/storage/migrate-blobs                     admin: inline base64 attachments → S3
 */
import type { Router } from 'express';
import { z } from 'zod';
import type { SessionContext } from '../../domain/auth/rules';
import { withinDeadline } from '../http/deadline';
import { defineRoute, reply } from '../http/route';
import { withUpload } from '../http/upload';
import { progressUrl, start } from '../../temporal/jobs';
import { errors } from '../../domain/errors';
import { sendAttachment } from '../http/download';
import type { RegistryService } from '../../domain/registry/service';
import { COMPANIES, DIRECTIONS, REGISTRY_LIST_BOUNDS, STATUS_CODES, registryViewer, type RegistryViewer } from '../../domain/registry/rules';

const viewerOf = (auth: SessionContext | undefined): RegistryViewer => registryViewer(auth!);

const DateStr = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Data trebuie scrisă AAAA-LL-ZZ.')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'Data nu există în calendar.')
  .refine((s) => Number(s.slice(0, 4)) >= 1990 && Number(s.slice(0, 4)) <= 2100, 'Anul trebuie să fie între 1990 și 2100.');
const Company = z.enum(COMPANIES).openapi({ description: 'B, U, S or G (G: the group company)' });
const Direction = z.enum(DIRECTIONS).openapi({ description: 'intrare (incoming) or iesire (outgoing)' });
const optText = (max: number) => z.string().trim().max(max).nullable().optional();

const TrackingInput = z.object({
  authority: z.string().trim().min(1, 'Autoritatea este obligatorie.').max(200),
  petitionerName: optText(200),
  requestNumber: z.string().trim().min(1, 'Numărul cererii este obligatoriu.').max(100).regex(/^[\p{L}\p{N}][\p{L}\p{N}\-/._ ]*$/u, 'Numărul cererii conține caractere nepermise.'),
});

const EntryFields = {
  company: Company.optional(),
  direction: Direction,
  date: DateStr.optional().openapi({ description: 'YYYY-MM-DD; default today (Europe/Bucharest); its year is the numbering year' }),
  subject: z.string().trim().min(1, 'Subiectul este obligatoriu.').max(500),
  sender: optText(300),
  recipient: optText(300),
  documentType: optText(100),
  notes: optText(5000),
  deadline: DateStr.nullable().optional(),
  assignee: optText(200),
  tracking: TrackingInput.nullable().optional(),
};
const CreateBody = z.object(EntryFields).strict();
const UpdateBody = z
  .object({ ...EntryFields, direction: Direction.optional(), subject: EntryFields.subject.optional() })
  .strict()
  .openapi({ description: 'Partial: absent fields keep their value; null clears an optional field' });

// The bounds are the registry page's too (web/app/lib/registry.server.ts): one definition, two doors.
const LIST = REGISTRY_LIST_BOUNDS;
const ListQuery = z.object({
  company: Company.optional(),
  year: z.coerce.number().int().min(LIST.yearMin).max(LIST.yearMax).optional(),
  direction: Direction.optional(),
  q: z.string().trim().max(LIST.searchMaxChars).optional(),
  page: z.coerce.number().int().min(1).max(LIST.pageMax).optional(),
  pageSize: z.coerce.number().int().min(1).max(LIST.pageSizeMax).optional(),
});
const IdParams = z.object({ id: z.string().uuid('Identificatorul nu este valid.') });
const AttachmentParams = IdParams.extend({ attachmentId: z.string().min(1).max(100) });

const Attachment = z.object({ id: z.string(), name: z.string(), size: z.number(), mimeType: z.string() });
const Tracking = z.object({
  authority: z.string(),
  petitionerName: z.string().nullable(),
  requestNumber: z.string(),
  status: z.string().nullable().openapi({ description: `one of ${STATUS_CODES.join(', ')} (or the authority's label when unknown)` }),
  statusLabel: z.string().nullable().optional(),
  statusText: z.string().nullable().optional(),
  statusClass: z.enum(['amber', 'blue', 'green', 'red']).nullable(),
  history: z.array(z.object({ at: z.string(), status: z.string(), text: z.string() })),
  changeHash: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
  lastError: z.string().nullable().optional(),
});
const Entry = z
  .object({
    id: z.string(),
    number: z.string().openapi({ example: 'B-2026-00042' }),
    company: Company,
    year: z.number(),
    sequence: z.number(),
    direction: Direction,
    date: z.string(),
    subject: z.string(),
    sender: z.string().nullable(),
    recipient: z.string().nullable(),
    documentType: z.string().nullable(),
    notes: z.string().nullable(),
    deadline: z.string().nullable(),
    assignee: z.string().nullable(),
    attachments: z.array(Attachment),
    tracking: Tracking.nullable(),
    createdBy: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    restricted: z.literal(true).optional().openapi({ description: 'personal fields withheld (basic panel or restricted scope)' }),
  })
  .openapi('RegistryEntry');
const EntryList = z.object({ items: z.array(Entry), total: z.number(), page: z.number(), pageSize: z.number() });
const History = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      action: z.string(),
      at: z.string(),
      actorId: z.string().nullable(),
      actorName: z.string().nullable(),
      number: z.string(),
      changes: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })),
    }),
  ),
});
const SingleCheckBody = z.object({ id: z.string().uuid('Identificatorul nu este valid.') }).strict();
const CheckResult = z.object({
  entryId: z.string(),
  number: z.string(),
  outcome: z.enum(['baseline', 'unchanged', 'changed', 'error', 'not-tracked']),
  status: z.string().nullable(),
  statusClass: z.string().nullable(),
  changeHash: z.string().nullable(),
  error: z.string().optional(),
  notified: z.boolean(),
  entry: Entry,
});
const MigrateBody = z.object({ maxEntries: z.number().int().min(1).max(1_000_000).optional() }).strict();

export function registerRegistryRoutes(router: Router, registry: RegistryService): void {
  const tags = ['registratura'];

  defineRoute(
    router,
    { method: 'get', path: '/api/registratura/entries', summary: 'Registry entries the caller may read, newest number first', tags, auth: 'session', query: ListQuery, response: { description: 'One page', schema: EntryList } },
    async ({ query, auth }) => registry.listEntries(viewerOf(auth), query),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/registratura/entries',
      summary: 'Register a document; the server allocates the number (spec 4.5 rule 1)',
      tags,
      auth: 'session',
      body: CreateBody,
      response: { status: 201, description: 'The new entry with its number', schema: Entry },
      failures: { 403: 'forbidden: another company’s registry (admins may write any)' },
    },
    async ({ body, auth }) => reply(201, await registry.createEntry(viewerOf(auth), body)),
  );

  defineRoute(
    router,
    { method: 'get', path: '/api/registratura/entries/:id', summary: 'One registry entry', tags, auth: 'session', params: IdParams, response: { description: 'The entry', schema: Entry }, failures: { 404: 'Unknown, or another company’s entry' } },
    async ({ params, auth }) => registry.getEntry(viewerOf(auth), params.id),
  );

  defineRoute(
    router,
    {
      method: 'put',
      path: '/api/registratura/entries/:id',
      summary: 'Change an entry; a new company, year or direction allocates a new number (spec 4.5 rule 2)',
      tags,
      auth: 'session',
      params: IdParams,
      body: UpdateBody,
      response: { description: 'The entry after the change', schema: Entry },
      failures: { 403: 'forbidden', 404: 'Unknown, or another company’s entry', 409: 'entry_changed: changed meanwhile' },
    },
    async ({ params, body, auth }) => registry.updateEntry(viewerOf(auth), params.id, body),
  );

  defineRoute(
    router,
    {
      method: 'delete',
      path: '/api/registratura/entries/:id',
      summary: 'Delete the entry holding the last number of its company and year (spec 4.5 rule 3), with its attachments',
      tags,
      auth: 'session',
      params: IdParams,
      response: { description: '{deleted, number}', schema: z.object({ deleted: z.literal(true), number: z.string() }) },
      failures: { 403: 'forbidden', 404: 'Unknown, or another company’s entry', 409: 'not_last_number: a later number exists (Romanian explanation)' },
    },
    async ({ params, auth }) => {
      const gone = await registry.deleteEntry(viewerOf(auth), params.id);
      return { deleted: true, number: gone.number };
    },
  );

  defineRoute(
    router,
    { method: 'get', path: '/api/registratura/entries/:id/history', summary: 'The entry’s change history (who, when, what), oldest first', tags, auth: 'session', params: IdParams, response: { description: 'History', schema: History }, failures: { 404: 'Unknown, or another company’s entry' } },
    async ({ params, auth }) => ({ items: await registry.entryHistory(viewerOf(auth), params.id) }),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/registratura/entries/:id/attachments',
      summary: 'Attach a file: multipart/form-data, field `file`, at most 500 MB, streamed to disk then to object storage',
      tags,
      auth: 'session',
      params: IdParams,
      response: { status: 201, description: 'The entry with the new attachment', schema: Entry },
      failures: { 403: 'forbidden', 404: 'Unknown entry', 413: 'payload_too_large' },
    },
    async ({ req, params, auth }) => {
      const viewer = viewerOf(auth);
      // Refuse before reading 500 MB for an entry the caller cannot change.
      await registry.assertEntry(viewer, params.id);
      return withUpload(req, { fileFields: ['file'] }, async (up) => {
        const file = up.files[0];
        if (!file) throw errors.badRequest('Lipsește fișierul (câmpul „file”).', [{ field: 'file', problem: 'required' }]);
        return reply(201, await registry.addAttachment(viewer, params.id, file));
      });
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/registratura/entries/:id/attachments/:attachmentId',
      summary: 'Download an attachment under its original name (RFC 6266 filename*)',
      tags,
      auth: 'session',
      params: AttachmentParams,
      response: { description: 'The file', contentType: 'application/octet-stream' },
      failures: { 404: 'Unknown entry or attachment' },
    },
    async ({ params, auth, res }) => {
      const file = await registry.openAttachment(viewerOf(auth), params.id, params.attachmentId);
      await sendAttachment(res, file.body, { contentType: file.mimeType, fileName: file.name, size: file.size });
    },
  );

  defineRoute(
    router,
    { method: 'delete', path: '/api/registratura/entries/:id/attachments/:attachmentId', summary: 'Remove an attachment (and its object)', tags, auth: 'session', params: AttachmentParams, response: { description: 'The entry', schema: Entry }, failures: { 403: 'forbidden', 404: 'Unknown entry or attachment' } },
    async ({ params, auth }) => registry.removeAttachment(viewerOf(auth), params.id, params.attachmentId),
  );

  defineRoute(
    router,
    { method: 'get', path: '/api/registratura/debug-sequences', summary: 'Admin: SEQ counters against the actual maxima, with samples of each number format', tags, auth: 'admin', response: { description: '{sequences}' } },
    async () => ({ sequences: await registry.sequenceReport() }),
  );

  defineRoute(
    router,
    { method: 'post', path: '/api/registratura/debug-sequences', summary: 'Admin: reset counters to the actual maxima and convert old-format numbers', tags, auth: 'admin', response: { description: '{counters, converted, skipped}' } },
    async ({ auth }) => registry.repairSequences({ userId: auth!.user.id, name: auth!.user.name }),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/registratura/status-check',
      summary: 'Cron: check every tracked entry at the status authority (a job; the hourly schedule runs the same workflow)',
      tags,
      auth: 'cron',
      response: { status: 202, description: '{jobId, progressUrl}', schema: z.object({ jobId: z.string(), progressUrl: z.string() }) },
      failures: { 409: 'already_running' },
    },
    async () => {
      const { jobId } = await start('registry-status-check', undefined);
      return reply(202, { jobId, progressUrl: progressUrl(jobId) });
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/registratura/status-check/single',
      summary: 'Check one tracked entry at the status authority now',
      tags,
      auth: 'session',
      body: SingleCheckBody,
      response: { description: 'What the check found, and the entry after it', schema: CheckResult },
      failures: {
        404: 'Unknown, or another company’s entry',
        409: 'not_tracked: the entry has no tracking block',
        429: 'rate_limited: the caller (or everyone) has too many outside calls in flight',
        504: 'upstream_timeout',
      },
    },
    // The authority is one municipal web server: a person's checks pass the one door of outside
    // work (capped, stopped when the client leaves), as the portal's do.
    ({ body, auth, req, res }) =>
      withinDeadline({ req, res }, () => registry.checkNow(viewerOf(auth), body.id), {
        message: 'Autoritatea nu a răspuns în timpul alocat cererii. Încercați din nou.',
      }),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/storage/migrate-blobs',
      summary: 'Admin: move inline base64 registry attachments into object storage, one entry at a time (resumable, idempotent)',
      tags: ['storage', 'registratura'],
      auth: 'admin',
      body: MigrateBody,
      response: { description: '{entries, attachments, bytes, remaining, failed}' },
    },
    async ({ body, auth }) => registry.migrateInlineAttachments({ userId: auth!.user.id, name: auth!.user.name }, { maxEntries: body.maxEntries }),
  );
}
