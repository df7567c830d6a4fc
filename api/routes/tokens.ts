/**
 * Personal access tokens (issue 29, CONTRACT.md section 6; docs/qgis.md):
 *   GET    /api/tokens       → {items:[{id, name, createdAt, expiresAt, lastUsedAt}]} (the caller's own, live;
 *                             `?all=true` by an administrator: every user's, each with userEmail)
 *   POST   /api/tokens       {name, expiresInDays?} → 201 {id, name, token, createdAt, expiresAt, lastUsedAt}
 *   DELETE /api/tokens/:id   → {revoked:true} (the caller's own; an administrator's: any)
 * Session only: a token never manages tokens (tokens are accepted on GET /ogc/* and /tiles/* only).
 */
import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute, reply } from '../http/route';
import { errors } from '../../domain/errors';
import type { Store } from '../../domain/db/store';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS } from '../../domain/auth/rules';
import type { AuthService } from '../../domain/auth/service';
import { loadSessionCached } from '../auth/sessionStore';
import { tokenIdentityOf } from '../auth/personalToken';

const TokenSummary = z.object({
  id: z.string().uuid(),
  name: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  lastUsedAt: z.string().nullable(),
  userEmail: z.string().optional().openapi({ description: 'The owner: only in an administrator’s list of every user’s tokens (all=true)' }),
});
const ListQuery = z.object({
  all: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'true: every user’s tokens, for an administrator (ignored for anyone else)' }),
});
const CreateBody = z.object({
  name: z.string().trim().min(1, 'Dați tokenului un nume.').max(100).openapi({ example: 'QGIS birou' }),
  expiresInDays: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_TOKEN_DAYS)
    .default(DEFAULT_TOKEN_DAYS)
    .openapi({ description: `Days until the token expires (default ${DEFAULT_TOKEN_DAYS}, max ${MAX_TOKEN_DAYS})` }),
});
const IdParams = z.object({ id: z.string().uuid() });

/** `store` holds the stored sessions a new token's identity is read from. */
export function registerTokenRoutes(router: Router, tokens: AuthService, store: Store): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/tokens',
      summary: "The caller's personal access tokens that still work (no secrets); an administrator's all=true lists every user's",
      tags: ['tokens'],
      auth: 'session',
      query: ListQuery,
      response: { description: 'Newest first', schema: z.object({ items: z.array(TokenSummary) }) },
    },
    async ({ auth, query }) => ({ items: await tokens.listTokens(auth!.user.id, { everyUser: query.all === 'true' && auth!.isAdmin }) }),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/tokens',
      summary: 'Create a personal access token for QGIS/GDAL (the secret is in this answer only)',
      tags: ['tokens'],
      auth: 'session',
      body: CreateBody,
      response: { status: 201, description: 'Created', schema: TokenSummary.extend({ token: z.string() }) },
      failures: { 409: 'Too many live tokens (too_many_tokens)' },
    },
    async ({ auth, body }) => {
      const row = await loadSessionCached(store.pool, auth!.sessionId);
      if (!row) throw errors.unauthorized();
      const created = await tokens.createToken(tokenIdentityOf(row.data), body);
      // The secret must not linger in any cache between here and the browser.
      return reply(201, created, { 'Cache-Control': 'no-store' });
    },
  );

  defineRoute(
    router,
    {
      method: 'delete',
      path: '/api/tokens/:id',
      summary: 'Revoke one of the caller’s tokens, or any user’s by an administrator (401 from then on)',
      tags: ['tokens'],
      auth: 'session',
      params: IdParams,
      response: { description: 'Revoked', schema: z.object({ revoked: z.literal(true) }) },
      failures: { 404: 'Not a live token of the caller (an administrator: not a live token)' },
    },
    async ({ auth, params }) => {
      await tokens.revokeToken({ userId: auth!.user.id, isAdmin: auth!.isAdmin }, params.id);
      return { revoked: true as const };
    },
  );
}
