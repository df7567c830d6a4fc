/**
 * Password vault (spec 4.6, 5.8; CONTRACT.md sections 3 and 4 "vault"; docs/office.md):
 *   GET    /api/vault ?q=          → {items:[entry without password]}
 *   GET    /api/vault ?id=         → {entry: entry with password}  (the read is logged)
 *   POST   /api/vault {name, …}    → 201 {entry}
 *   PUT    /api/vault ?id= or {id, …} → {entry}
 *   DELETE /api/vault ?id=         → {deleted:true}
 *   PATCH  /api/vault              → {migrated}  (legacy plaintext re-encrypted; again: 0)
 *   GET    /api/vault/access-log ?id= → {items:[{at, entryId, entryName, userEmail}]}
 * Entries of the caller's company (G: every company).
 */
import type { Router } from 'express';
import { z } from 'zod';
import type { SessionContext } from '../../domain/auth/rules';
import { defineRoute, reply } from '../http/route';
import { callerKey, heavyWork } from '../http/rateLimit';
import { errors } from '../../domain/errors';
import { COMPANIES, vaultCaller, type VaultCaller } from '../../domain/office/rules';
import type { OfficeService } from '../../domain/office/service';

const Id = z.uuid('Identificatorul intrării nu este valid.');
const text = (max: number) => z.string().trim().max(max);
const optionalText = (max: number) => text(max).nullable().optional();

const EntryOut = z.object({
  id: z.string(),
  name: z.string(),
  username: z.string().nullable(),
  url: z.string().nullable(),
  notes: z.string().nullable(),
  company: z.string().nullable(),
  hasPassword: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const EntryWithPassword = EntryOut.extend({ password: z.string().nullable() });

/**
 * Only web addresses: the UI renders the URL as a link, and a `javascript:` or `data:` one would
 * run in the page of whoever clicks it. An empty string clears it.
 */
const HttpUrl = text(2000)
  .refine((v) => v === '' || isHttpUrl(v), { message: 'Adresa trebuie să fie un URL http:// sau https://.' })
  .nullable()
  .optional();

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

const Fields = {
  username: optionalText(300),
  url: HttpUrl.openapi({ description: 'http(s) only' }),
  password: z.string().max(4000).nullable().optional().openapi({ description: 'Clear text; sealed on the server' }),
  notes: optionalText(10_000),
  company: z.enum(COMPANIES).optional().openapi({ description: 'Default: the caller’s company; another one only for G' }),
};
const CreateBody = z.object({ name: text(300).min(1, 'Numele este obligatoriu.'), ...Fields });
const UpdateBody = z.object({ id: Id.optional(), name: text(300).min(1).optional(), ...Fields });
const ListQuery = z.object({ id: Id.optional(), q: z.string().max(200).optional() });
const IdQuery = z.object({ id: Id });
const OptionalIdQuery = z.object({ id: Id.optional() });

function caller(auth: SessionContext | undefined): VaultCaller {
  return vaultCaller(auth!);
}

export function registerVaultRoutes(router: Router, office: OfficeService): void {
  // A password, the list of what the vault holds and its access log must stay in no cache
  // (browser, proxy or CDN): every answer of the vault, its errors and its writes included.
  router.use('/api/vault', (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/vault',
      summary: 'List vault entries without passwords, or read one with its password (?id=, logged)',
      tags: ['vault'],
      auth: 'session',
      query: ListQuery,
      response: {
        description: '{items} for the list; {entry} with the password for ?id=',
        schema: z.union([z.object({ items: z.array(EntryOut) }), z.object({ entry: EntryWithPassword })]),
      },
      failures: { 403: 'No company on the account', 404: 'Unknown entry' },
    },
    async ({ query, auth, req }) =>
      query.id
        ? { entry: await heavyWork.vault.run(callerKey(req), () => office.revealVaultEntry(caller(auth), query.id!)) }
        : { items: await office.listVault(caller(auth), query.q) },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/vault/access-log',
      summary: 'Who read which password and when (newest first, 100)',
      tags: ['vault'],
      auth: 'session',
      query: OptionalIdQuery,
      response: {
        description: 'Access log',
        schema: z.object({ items: z.array(z.object({ at: z.string(), entryId: z.string().nullable(), entryName: z.string(), userEmail: z.string() })) }),
      },
    },
    async ({ query, auth }) => ({ items: await office.vaultAccessLog(caller(auth), query.id) }),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/vault',
      summary: 'Create a vault entry',
      tags: ['vault'],
      auth: 'session',
      body: CreateBody,
      response: { status: 201, description: 'Created (without password)', schema: z.object({ entry: EntryOut }) },
      failures: { 403: 'Another company than the caller’s' },
    },
    async ({ body, auth, req }) => reply(201, { entry: await heavyWork.vault.run(callerKey(req), () => office.createVaultEntry(caller(auth), body)) }),
  );

  defineRoute(
    router,
    {
      method: 'put',
      path: '/api/vault',
      summary: 'Update a vault entry (id in the query or the body); fields left out stay',
      tags: ['vault'],
      auth: 'session',
      query: OptionalIdQuery,
      body: UpdateBody,
      response: { description: 'Updated (without password)', schema: z.object({ entry: EntryOut }) },
      failures: { 404: 'Unknown entry' },
    },
    async ({ body, query, auth, req }) => {
      const id = query.id ?? body.id;
      if (!id) throw errors.badRequest('Lipsește identificatorul intrării.', [{ field: 'id', problem: 'obligatoriu (în query sau în corp)' }]);
      const { id: _ignored, ...input } = body;
      return { entry: await heavyWork.vault.run(callerKey(req), () => office.updateVaultEntry(caller(auth), id, input)) };
    },
  );

  defineRoute(
    router,
    {
      method: 'delete',
      path: '/api/vault',
      summary: 'Delete a vault entry',
      tags: ['vault'],
      auth: 'session',
      query: IdQuery,
      response: { description: 'Deleted', schema: z.object({ deleted: z.literal(true) }) },
      failures: { 404: 'Unknown entry' },
    },
    async ({ query, auth }) => {
      await office.deleteVaultEntry(caller(auth), query.id);
      return { deleted: true };
    },
  );

  defineRoute(
    router,
    {
      method: 'patch',
      path: '/api/vault',
      summary: 'Re-encrypt the caller’s legacy plaintext entries',
      tags: ['vault'],
      auth: 'session',
      response: { description: 'How many entries were re-encrypted', schema: z.object({ migrated: z.number().int() }) },
    },
    async ({ auth, req }) => heavyWork.vault.run(callerKey(req), () => office.migrateLegacyVault(caller(auth))),
  );
}
