/**
 * Tag manager (spec 4.6; CONTRACT.md sections 3 and 4; docs/office.md "Tag sync"):
 *   GET    /api/manictime                         → {file, lastSyncAt, fingerprint, plan}
 *   POST   /api/manictime {mode, resolutions?, expectFingerprint?} → {mode, applied, conflicts, plan}
 *   GET    /api/tags ?q=&company=                 → {items:[tag]}
 *   POST   /api/tags {project, phase?, activity?, company?} → 201 {tag}
 *   PUT    /api/tags/:id {name?, company?}        → {tag} (rename or company; a project or phase with what is under it)
 *   DELETE /api/tags/:id                          → {deleted: n} (a project or phase with what is under it)
 * Writing the tag file (push, both, a conflict resolved for the app), changing and deleting tags
 * are for administrators (issue 25); reading, pulling and adding tags are open to every user.
 * The tag file is config.office.tagFilePath (TAG_FILE_PATH).
 */
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute, reply } from '../http/route';
import { requireAdmin } from '../auth/guards';
import { COMPANIES } from '../../domain/office/rules';
import type { TagsService } from '../../domain/tags/service';

const Changes = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.object({ from: z.string(), to: z.string() })),
});
const Conflict = z.object({ key: z.string(), base: z.string().nullable(), file: z.string().nullable(), db: z.string().nullable() });
const Plan = z.object({
  firstSync: z.boolean(),
  file: Changes.openapi({ description: 'Changes in the tag file since the last sync (pull applies them)' }),
  db: Changes.openapi({ description: 'Changes in the app since the last sync (push writes them)' }),
  conflicts: z.array(Conflict),
  inSync: z.boolean(),
});
const PlanAnswer = z.object({
  file: z.object({
    path: z.string().nullable().openapi({ description: 'Where the tag file lives on the server; administrators only (null for others)' }),
    exists: z.boolean(),
    lines: z.number(),
    encoding: z.string(),
  }),
  lastSyncAt: z.string().nullable(),
  fingerprint: z.string(),
  plan: Plan,
});
const ApplyBody = z.object({
  mode: z.enum(['pull', 'push', 'both']),
  resolutions: z
    .record(z.string().max(2000), z.enum(['file', 'db']))
    .optional()
    .openapi({ description: 'Conflict key → the side whose version wins (applied whatever the mode)' }),
  expectFingerprint: z.string().max(64).optional().openapi({ description: 'Fingerprint of the plan shown; 409 plan_changed if the state moved' }),
});
const ApplyAnswer = z.object({
  mode: z.string(),
  applied: z.object({
    db: z.object({ added: z.number(), removed: z.number(), changed: z.number() }),
    file: z.object({ written: z.boolean(), backup: z.string().nullable() }),
  }),
  conflicts: z.array(Conflict),
  plan: Plan,
});
const TagOut = z.object({
  id: z.string(),
  path: z.string(),
  category: z.string(),
  project: z.string(),
  phase: z.string().nullable(),
  activity: z.string().nullable(),
  projectCode: z.string().nullable(),
  company: z.string().nullable(),
});
const level = z.string().trim().max(200);
const AddBody = z.object({
  project: level.min(1, 'Proiectul este obligatoriu.'),
  phase: level.nullable().optional(),
  activity: level.nullable().optional(),
  company: z.enum(COMPANIES).nullable().optional(),
});
const ChangeBody = z
  .object({
    name: level.min(1, 'Numele nu poate fi gol.').optional().openapi({ description: 'The tag’s own level: project text (with its code), phase or activity' }),
    company: z.enum(COMPANIES).nullable().optional().openapi({ description: 'For the tag and every tag under it; null: the company its project code implies' }),
    level: z
      .enum(['project', 'phase', 'activity'], 'Nivelul este project, phase sau activity.')
      .optional()
      .openapi({ description: 'The level of the tag’s path that `name` renames (default: the tag’s own); project or phase renames it for every tag sharing it' }),
  })
  .refine((b) => b.name !== undefined || b.company !== undefined, { message: 'Indicați numele nou sau firma.', path: ['name'] });
const TagId = z.object({ id: z.uuid('Identificatorul nu este valid.') });

export function registerTagRoutes(router: Router, tags: TagsService): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/manictime',
      summary: 'Read the tag file and answer the sync plan',
      tags: ['tags'],
      auth: 'session',
      response: { description: 'Sync plan', schema: PlanAnswer },
      failures: { 422: 'The tag file is not UTF-8 text' },
    },
    async ({ auth }) => {
      const answer = await tags.syncPlan();
      // A server path means nothing to a user and tells an outsider where the office's files are.
      return auth?.isAdmin ? answer : { ...answer, file: { ...answer.file, path: null } };
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/manictime',
      summary: 'Apply the sync plan (pull, push or both), with a backup before writing the file; writing the file is for administrators',
      tags: ['tags'],
      auth: 'session',
      body: ApplyBody,
      response: { description: 'What was applied; conflicts left unresolved', schema: ApplyAnswer },
      failures: {
        403: 'push, both, or a conflict resolved for the app’s side (each writes the shared tag file) by a non-administrator',
        409: 'plan_changed: the state moved since the plan shown',
        422: 'The tag file is not UTF-8 text',
      },
    },
    ({ body, auth }) => {
      // The tag file is the whole office's time tracker: only an administrator writes it. A pull
      // (the file's changes into the app) stays open to every user.
      const writesFile = body.mode !== 'pull' || Object.values(body.resolutions ?? {}).includes('db');
      if (writesFile) requireAdmin(auth, 'Doar administratorii pot scrie fișierul de etichete (push).');
      return tags.applySync(body, auth!.user.email);
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/tags',
      summary: 'The app’s tags (projects, phases, activities)',
      tags: ['tags'],
      auth: 'session',
      query: z.object({ q: z.string().max(200).optional(), company: z.enum(COMPANIES).optional() }),
      response: { description: 'Tags ordered by project, phase, activity', schema: z.object({ items: z.array(TagOut) }) },
    },
    async ({ query }) => ({ items: await tags.listTags(query) }),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/tags',
      summary: 'Add a project, phase or activity tag',
      tags: ['tags'],
      auth: 'session',
      body: AddBody,
      response: { status: 201, description: 'Created', schema: z.object({ tag: TagOut }) },
      failures: { 409: 'tag_exists' },
    },
    async ({ body }) => reply(201, { tag: await tags.addTag(body) }),
  );

  defineRoute(
    router,
    {
      method: 'put',
      path: '/api/tags/:id',
      summary: 'Rename a tag or change its company (a project or phase with the tags under it); administrators only',
      tags: ['tags'],
      auth: 'admin',
      params: TagId,
      body: ChangeBody,
      response: { description: 'The tag after the change', schema: z.object({ tag: TagOut }) },
      failures: { 400: 'A level below the tag’s own', 404: 'Unknown tag', 409: 'tag_exists: another tag has that name' },
    },
    async ({ params, body }) => ({ tag: await tags.updateTag(params.id, body) }),
  );

  defineRoute(
    router,
    {
      method: 'delete',
      path: '/api/tags/:id',
      summary: 'Delete a tag (a project or phase with the tags under it); administrators only',
      tags: ['tags'],
      auth: 'admin',
      params: TagId,
      response: { description: 'How many tags were deleted', schema: z.object({ deleted: z.number() }) },
      failures: { 404: 'Unknown tag' },
    },
    ({ params }) => tags.deleteTag(params.id),
  );
}
