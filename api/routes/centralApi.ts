/**
 * The central GIS API proxy routes of spec 4.2 (`/api/gis/*`, `/api/cf/*`) and the claims
 * diagnostic `GET /api/gis/whoami` (CONTRACT.md section 4). Common rules: 401 without a session;
 * the upstream's status, error code and body forwarded; any other failure 500 `internal_error`
 * with a hint; 30 s per upstream call, then 504 `upstream_timeout` (domain/central/client.ts);
 * always the caller's own access token (api/auth/accessToken.ts). The central API redacts
 * personal data for the `basic` scope; these routes only ever narrow what it answers (the basic
 * panel and the scope rule of domain/geoportal/redact.ts), never widen it.
 */
import { pipeline } from 'node:stream/promises';
import type { Router } from 'express';
import type pg from 'pg';
import type { Store } from '../../domain/db/store';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { contentDisposition } from '../http/contentDisposition';
import { defineRoute, type HandlerContext } from '../http/route';
import { outsideCallerOfRequest } from '../http/deadline';
import { cfExtractGate } from '../http/gates';
import { LayerId, Siruta } from '../http/schemas';
import { callerTokenSource } from '../auth/accessToken';
import type { SessionContext } from '../../domain/auth/rules';
import { CENTRAL_SEARCH_LIMIT, type CentralRequest, type CentralSearchAnswer, type CentralService } from '../../domain/central/service';
import { redactEnrichment, viewerOf } from '../../domain/geoportal/rules';
import { errors } from '../../domain/errors';
import { childLogger } from '../../domain/log';

const log = childLogger('central');
const GIS = ['central-gis'];
const CF = ['central-cf'];

const CadRef = z.string().trim().min(1, 'Numărul cadastral lipsește.').max(100);
const ParcelRef = z.object({ siruta: Siruta, cadastralRef: CadRef, force: z.boolean().optional() });
const Upstream = z.record(z.string(), z.unknown()).openapi({ description: 'The central API answer, forwarded' });
const UPSTREAM_FAILURES = {
  403: 'The central API forbids the caller (its error code, e.g. insufficient_scope)',
  404: 'Not in the central store',
  504: 'upstream_timeout: the central API took longer than 30 s',
};

function auth(ctx: HandlerContext<unknown, unknown>): SessionContext {
  if (!ctx.auth) throw errors.unauthorized();
  return ctx.auth;
}

/** What the routes ask of the central API, each call with the caller's own token (its session in `db`). */
function centralCalls(central: CentralService, db: pg.Pool) {
  return <T = Record<string, unknown>>(a: SessionContext, req: Omit<CentralRequest, 'token'>) => central.json<T>({ ...req, token: callerTokenSource(db, a) });
}
type Call = ReturnType<typeof centralCalls>;

/** What the caller may see of a parcel detail: never more than the central API answered. */
function narrowFeature(a: SessionContext, feature: unknown): unknown {
  if (!feature || typeof feature !== 'object') return feature;
  const f = feature as Record<string, unknown>;
  if (a.basicPanel) return { cadastralRef: f.cadastralRef ?? null, areaValue: f.areaValue ?? null, restricted: true };
  if (!('enrichment' in f)) return f;
  return { ...f, enrichment: redactEnrichment((f.enrichment as Record<string, unknown> | null) ?? null, viewerOf(a)) };
}

/**
 * A parcel POST forwarded to the central API under the same path (`/api/gis<path>`); `narrow`
 * applies the viewer rule to what comes back.
 */
function forwardParcelPost(
  router: Router,
  call: Call,
  path: string,
  summary: string,
  body: z.ZodType<Record<string, unknown>>,
  description: string,
  narrow: (a: SessionContext, out: Record<string, unknown>) => unknown = (_a, out) => out,
): void {
  defineRoute(
    router,
    { method: 'post', path: `/api/gis${path}`, summary, tags: GIS, auth: 'session', body, response: { description, schema: Upstream }, failures: UPSTREAM_FAILURES },
    async (ctx) => {
      const a = auth(ctx);
      return narrow(a, await call(a, { method: 'POST', path, body: ctx.body }));
    },
  );
}

/** `store`: where the callers' sessions are, for their tokens (api/auth/accessToken.ts). */
export function registerCentralApiRoutes(router: Router, central: CentralService, store: Store): void {
  const call = centralCalls(central, store.pool);
  router.use(['/api/gis', '/api/cf'], outsideCallerOfRequest);
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/gis/whoami',
      summary: 'Diagnostic: the claims of the caller’s access token (never the token itself)',
      tags: GIS,
      auth: 'session',
      response: {
        description: 'Claims and the session flags',
        schema: z.object({
          claims: z.record(z.string(), z.unknown()).nullable(),
          enrichmentScope: z.enum(['full', 'basic', 'none']).nullable(),
          useCentralApi: z.boolean(),
          basicPanel: z.boolean(),
          expiresAt: z.string().nullable(),
        }),
      },
    },
    (ctx) => {
      const a = auth(ctx);
      let claims: Record<string, unknown> | null;
      try {
        claims = a.accessToken ? (decodeJwt(a.accessToken) as Record<string, unknown>) : null;
      } catch {
        claims = null; // an opaque (non-JWT) token has no claims to show
      }
      // The claims are the caller's own identity, but a log line stays short and bounded.
      log.info({ userId: a.user.id, claims: JSON.stringify(claims).slice(0, 500) }, 'gis/whoami');
      const exp = typeof claims?.exp === 'number' ? new Date(claims.exp * 1000).toISOString() : null;
      return { claims, enrichmentScope: a.enrichmentScope, useCentralApi: a.useCentralApi, basicPanel: a.basicPanel, expiresAt: exp };
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/gis/search',
      summary: 'Central search by cadastral reference (default and maximum 50 features), each hit with its UAT name from the local catalogue',
      tags: GIS,
      auth: 'session',
      query: z.object({
        q: z.string().trim().min(1, 'Textul de căutare lipsește.').max(200),
        limit: z.coerce.number().int().min(1).max(CENTRAL_SEARCH_LIMIT).default(CENTRAL_SEARCH_LIMIT),
        siruta: Siruta.optional().openapi({ description: 'Keep only this UAT’s hits (of the page the central API answered: it has no siruta filter)' }),
      }),
      response: {
        description: 'Features, each with id, layerId, siruta, cadastral_ref and the UAT name and county of the local catalogue',
        schema: z.object({
          features: z.array(
            z.object({
              id: z.string(),
              layerId: z.string(),
              siruta: z.number().int(),
              cadastral_ref: z.string(),
              uatName: z.string().nullable(),
              county: z.string().nullable(),
            }),
          ),
          total: z.number().int().optional(),
          limit: z.number().int().optional(),
        }),
      },
      failures: UPSTREAM_FAILURES,
    },
    async (ctx) =>
      central.nameHits(await call<CentralSearchAnswer>(auth(ctx), { path: '/search', query: { q: ctx.query.q, limit: ctx.query.limit } }), { siruta: ctx.query.siruta }),
  );

  // Before /parcela/:id, which would take `find` for an id.
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/gis/parcela/find',
      summary: 'The central parcel of (siruta, cad, layerId): spec 4.2 rules 1-4',
      tags: GIS,
      auth: 'session',
      query: z.object({ siruta: Siruta, cad: CadRef, layerId: LayerId.default('TERENURI_ACTIVE') }),
      response: { description: 'Parcel detail with enrichment filtered by the caller’s scope', schema: Upstream },
      failures: {
        ...UPSTREAM_FAILURES,
        403: 'scope_insufficient: every candidate parcel was forbidden (the UI offers a new sign-in)',
        404: 'not_found: the parcel is not in the central store',
        422: 'search_limit_exceeded: 50 hits share the reference, none in this siruta (hint names the missing upstream filter)',
      },
    },
    async (ctx) => {
      const a = auth(ctx);
      const detail = await central.findParcel({ siruta: ctx.query.siruta, cad: ctx.query.cad, layerId: ctx.query.layerId, token: callerTokenSource(store.pool, a) });
      return narrowFeature(a, detail);
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/gis/parcela/:id',
      summary: 'Central parcel detail by uuid, enrichment filtered by the caller’s scope',
      tags: GIS,
      auth: 'session',
      params: z.object({ id: z.string().uuid('id trebuie să fie un UUID.') }),
      response: { description: 'Parcel detail', schema: Upstream },
      failures: UPSTREAM_FAILURES,
    },
    async (ctx) => {
      const a = auth(ctx);
      return narrowFeature(a, await call(a, { path: `/parcela/${ctx.params.id}` }));
    },
  );

  forwardParcelPost(router, call, '/parcel/tech', 'Refresh a parcel’s technical data from the land registry through the central API', ParcelRef, 'Technical data');
  forwardParcelPost(router, call, '/parcel/enrich', 'Central enrichment round trip (cached 30 days upstream; force=true refreshes)', ParcelRef, '{feature, cached}', (a, out) =>
    'feature' in out ? { ...out, feature: narrowFeature(a, out.feature) } : out,
  );
  forwardParcelPost(router, call, '/parcel/units-fetch', 'Units of a condominium building (siruta + the building’s cadastral reference)', ParcelRef.omit({ force: true }), '{units}');
  forwardParcelPost(router, call, '/building/condo-owners', 'Units of a condominium with owners, CF number and area (redacted upstream for scope basic)', ParcelRef.omit({ force: true }), '{units}', (a, out) =>
    a.basicPanel && Array.isArray(out.units)
      ? { ...out, units: (out.units as Array<Record<string, unknown>>).map((u) => ({ ...u, owners: null, nrCF: null })) }
      : out,
  );

  // ---- CF extracts on the central path ---------------------------------------------------------
  const CF_EXTRACT_FORBIDDEN = {
    403: `forbidden: the caller may not see personal data (scope basic or none, basic panel), an extract names the owners; or ${UPSTREAM_FAILURES[403]}`,
  };
  const OrderId = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'Identificator de comandă invalid.') });

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/cf/order',
      summary: 'Order a CF extract through the central API (409 catalog_hit forwarded: a valid extract exists)',
      tags: CF,
      auth: 'session',
      gate: cfExtractGate,
      body: ParcelRef,
      response: { status: 201, description: 'The new order', schema: Upstream },
      failures: { ...UPSTREAM_FAILURES, ...CF_EXTRACT_FORBIDDEN, 409: 'catalog_hit: a valid extract exists (the UI treats it as success)' },
    },
    async (ctx) => {
      const out = await call(auth(ctx), { method: 'POST', path: '/cf/order', body: ctx.body });
      ctx.res.status(201).json(out);
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cf/orders',
      summary: 'The caller’s central CF orders',
      tags: CF,
      auth: 'session',
      query: z.object({
        limit: z.coerce.number().int().min(1).max(100).optional(),
        offset: z.coerce.number().int().min(0).optional(),
        status: z.enum(['processing', 'completed', 'cancelled', 'failed']).optional(),
      }),
      response: { description: '{items, total, limit, offset}', schema: Upstream },
      failures: UPSTREAM_FAILURES,
    },
    (ctx) => call(auth(ctx), { path: '/cf/orders', query: ctx.query }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cf/catalog',
      summary: 'Catalog of existing valid extracts',
      tags: CF,
      auth: 'session',
      response: { description: '{items}', schema: Upstream },
      failures: UPSTREAM_FAILURES,
    },
    (ctx) => call(auth(ctx), { path: '/cf/catalog' }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cf/:id',
      summary: 'One central CF order',
      tags: CF,
      auth: 'session',
      params: OrderId,
      response: { description: 'The order', schema: Upstream },
      failures: UPSTREAM_FAILURES,
    },
    (ctx) => call(auth(ctx), { path: `/cf/${ctx.params.id}` }),
  );

  defineRoute(
    router,
    {
      method: 'patch',
      path: '/api/cf/:id',
      summary: 'Rename the document or cancel a central CF order',
      tags: CF,
      auth: 'session',
      params: OrderId,
      body: z
        .object({ documentName: z.string().trim().min(1).max(200).optional(), status: z.literal('cancelled').optional() })
        .refine((b) => b.documentName !== undefined || b.status !== undefined, 'Dați documentName sau status.'),
      response: { description: 'The updated order', schema: Upstream },
      failures: { ...UPSTREAM_FAILURES, 409: 'The order can no longer be cancelled (upstream code)' },
    },
    (ctx) => call(auth(ctx), { method: 'PATCH', path: `/cf/${ctx.params.id}`, body: ctx.body }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cf/:id/pdf',
      summary: 'The extract PDF, streamed; file name from documentName, else cf-<id>.pdf',
      tags: CF,
      auth: 'session',
      gate: cfExtractGate,
      params: OrderId,
      response: { description: 'PDF', contentType: 'application/pdf', schema: z.string().openapi({ format: 'binary' }) },
      failures: { ...UPSTREAM_FAILURES, ...CF_EXTRACT_FORBIDDEN, 409: 'The extract is not issued yet (upstream code)' },
    },
    async (ctx) => {
      const a = auth(ctx);
      const token = callerTokenSource(store.pool, a);
      const order = await central.json<{ documentName?: string | null }>({ path: `/cf/${ctx.params.id}`, token });
      const upstream = await central.stream({ path: `/cf/${ctx.params.id}/pdf`, token });
      const name = order.documentName?.trim() || `cf-${ctx.params.id}.pdf`;
      const length = upstream.headers['content-length'];
      ctx.res.status(200).set({
        'Content-Type': 'application/pdf',
        'Content-Disposition': contentDisposition(name),
        ...(typeof length === 'string' ? { 'Content-Length': length } : {}),
      });
      await pipeline(upstream.body, ctx.res);
    },
  );
}
