/**
 * Address book and project tags for external tools (spec 4.6, 5.3; CONTRACT.md sections 2, 4, 5;
 * docs/office.md). Outside the session requirement: the ADDRESSBOOK_API_KEY bearer token (compared
 * in constant time by api/auth/bearer.ts) or a user session; 60 requests a minute per token
 * (api/http/rateLimit.ts tokenRateLimit).
 *   GET    /api/contacts ?q=&company=&type=  → {items:[contact]}
 *   GET    /api/contacts ?id=                → {contact}
 *   POST   /api/contacts {name, …}           → 201 {contact}
 *   PUT    /api/contacts/:id {…}             → {contact}
 *   DELETE /api/contacts/:id                 → {deleted:true}
 *   GET    /api/project-tags ?q=&company=    → {items:[{id, code, name, path, company, updatedAt}]}
 *   GET    /api/project-tags ?id=            → {tag}
 */
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute, reply } from '../http/route';
import { errors } from '../../domain/errors';
import { COMPANIES, CONTACT_TYPES } from '../../domain/office/rules';
import type { OfficeService } from '../../domain/office/service';
import type { TagsService } from '../../domain/tags/service';

const Id = z.uuid('Identificatorul nu este valid.');
const Company = z.enum(COMPANIES);
const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

const ContactOut = z.object({
  id: z.string(),
  name: z.string(),
  company: z.string().nullable(),
  type: z.string(),
  organization: z.string().nullable(),
  role: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  address: z.string().nullable(),
  notes: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const Fields = {
  company: Company.nullable().optional(),
  type: z.enum(CONTACT_TYPES).optional(),
  organization: optionalText(300),
  role: optionalText(200),
  email: z.email('Adresa de e-mail nu este validă.').max(320).nullable().optional(),
  phone: z
    .string()
    .trim()
    .max(50)
    .regex(/^[0-9+()./\s-]*$/, 'Numărul de telefon conține caractere nepermise.')
    .nullable()
    .optional(),
  address: optionalText(1000),
  notes: optionalText(10_000),
};
const CreateBody = z.object({ name: z.string().trim().min(1, 'Numele este obligatoriu.').max(300), ...Fields });
const UpdateBody = z.object({ name: z.string().trim().min(1).max(300).optional(), ...Fields });
const ContactQuery = z.object({
  id: Id.optional(),
  q: z.string().max(200).optional(),
  company: Company.optional(),
  type: z.enum(CONTACT_TYPES).optional(),
});
const TagQuery = z.object({ id: Id.optional(), q: z.string().max(200).optional(), company: Company.optional() });
const ProjectTagOut = z.object({
  id: z.string(),
  code: z.string().nullable(),
  name: z.string(),
  path: z.string(),
  company: z.string().nullable(),
  updatedAt: z.string(),
});
const IdParams = z.object({ id: Id });

export function registerAddressBookRoutes(router: Router, office: OfficeService, tags: TagsService): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/contacts',
      summary: 'Address book: list, search, filter, or one contact by id',
      tags: ['address book'],
      auth: 'addressbook',
      query: ContactQuery,
      response: {
        description: '{items} (at most 500, by name) or {contact} for ?id=',
        schema: z.union([z.object({ items: z.array(ContactOut) }), z.object({ contact: ContactOut })]),
      },
      failures: { 404: 'Unknown contact', 429: 'Over 60 requests a minute for this token' },
    },
    async ({ query }) =>
      query.id ? { contact: await office.getContact(query.id) } : { items: await office.listContacts(query) },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/contacts',
      summary: 'Address book: add a contact',
      tags: ['address book'],
      auth: 'addressbook',
      body: CreateBody,
      response: { status: 201, description: 'Created', schema: z.object({ contact: ContactOut }) },
      failures: { 429: 'Over 60 requests a minute for this token' },
    },
    async ({ body, auth }) => reply(201, { contact: await office.createContact(body, auth?.user.email ?? 'api-key') }),
  );

  defineRoute(
    router,
    {
      method: 'put',
      path: '/api/contacts/:id',
      summary: 'Address book: change a contact (fields left out stay)',
      tags: ['address book'],
      auth: 'addressbook',
      params: IdParams,
      body: UpdateBody,
      response: { description: 'Updated', schema: z.object({ contact: ContactOut }) },
      failures: { 404: 'Unknown contact', 429: 'Over 60 requests a minute for this token' },
    },
    async ({ params, body }) => ({ contact: await office.updateContact(params.id, body) }),
  );

  defineRoute(
    router,
    {
      method: 'delete',
      path: '/api/contacts/:id',
      summary: 'Address book: delete a contact',
      tags: ['address book'],
      auth: 'addressbook',
      params: IdParams,
      response: { description: 'Deleted', schema: z.object({ deleted: z.literal(true) }) },
      failures: { 404: 'Unknown contact', 429: 'Over 60 requests a minute for this token' },
    },
    async ({ params }) => {
      await office.deleteContact(params.id);
      return { deleted: true };
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/project-tags',
      summary: 'Project tags (category project) for external tools',
      tags: ['address book'],
      auth: 'addressbook',
      query: TagQuery,
      response: {
        description: '{items} (at most 500, by code) or {tag} for ?id=',
        schema: z.union([z.object({ items: z.array(ProjectTagOut) }), z.object({ tag: ProjectTagOut })]),
      },
      failures: { 404: 'Unknown project tag', 429: 'Over 60 requests a minute for this token' },
    },
    async ({ query }) => {
      const items = await tags.listProjectTags(query);
      if (!query.id) return { items };
      if (!items[0]) throw errors.notFound('Eticheta de proiect nu există.');
      return { tag: items[0] };
    },
  );
}
