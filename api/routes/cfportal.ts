/**
 * Certificate portal routes (spec 4.3, CONTRACT.md sections 1, 3, 4; docs/cf.md):
 *   GET|POST /api/cfportal/session   the portal account in use; connect/switch/disconnect is admin-only
 *   POST /api/cfportal/order         one parcel or a bulk list → 202 {orderId, extracts}; 409 catalog_hit,
 *                                    order_in_progress, order_unsettled; 402; 410 for central-API users (never the shared account)
 *   GET  /api/cfportal/orders        the caller's extracts (an admin: everyone's, or one user's), newest first, paged
 *   GET  /api/cfportal/orderers      admin: who ordered extracts (the list's user filter)
 *   GET  /api/cfportal/parcel        one parcel's extract state, whoever ordered it
 *   PATCH /api/cfportal/extracts/:id {status: cancelled} while pending, by the orderer or an admin
 *   GET  /api/cfportal/credits       live credit balance
 *   GET  /api/cfportal/download?id=  the PDF (S3, or a legacy inline pdfData)
 *   GET  /api/cfportal/test?step=    admin diagnostic: login, uats, search, order, download
 */
import type { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { Siruta, WorkspacePk } from '../http/schemas';
import { defineRoute, reply } from '../http/route';
import { cfExtractGate, legacyWriteGate } from '../http/gates';
import { config } from '../../domain/config';
import { start } from '../../temporal/jobs';
import { errors } from '../../domain/errors';
import { contentDisposition } from '../http/contentDisposition';
import { hidesPersonalData } from '../../domain/auth/rules';
import { withinDeadline } from '../http/deadline';
import { CF_STEPS, type CfportalService } from '../../domain/cfportal/service';
import type { CfOrderBatchInput } from '../../domain/cfportal/jobTypes';

const TAGS = ['cfportal'];

const NrCadastral = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .regex(/^[0-9A-Za-z][0-9A-Za-z/.-]*$/, 'Numărul cadastral conține caractere nepermise.')
  .openapi({ example: '50123' });
const UserId = z.string().min(1).max(200).openapi({ description: 'Orderer; default the session user (admins may order for someone else)' });

const Parcel = z.object({ nrCadastral: NrCadastral, siruta: Siruta, workspacePk: WorkspacePk.optional(), userId: UserId.optional() });
/** Spec 4.3: one parcel (fields at top level) or a bulk list. */
export const MAX_PARCELS_PER_ORDER = 100;
const OrderBody = z
  .object({
    parcels: z.array(Parcel).min(1).max(MAX_PARCELS_PER_ORDER).optional(),
    nrCadastral: NrCadastral.optional(),
    siruta: Siruta.optional(),
    workspacePk: WorkspacePk.optional(),
    userId: UserId.optional(),
    force: z.boolean().optional().openapi({ description: 'Order even when a valid extract exists (costs a credit)' }),
  })
  .superRefine((b, ctx) => {
    if (b.parcels) return;
    if (b.nrCadastral === undefined) ctx.addIssue({ code: 'custom', path: ['nrCadastral'], message: 'Lipsește numărul cadastral (sau lista parcels).' });
    if (b.siruta === undefined) ctx.addIssue({ code: 'custom', path: ['siruta'], message: 'Lipsește codul SIRUTA (sau lista parcels).' });
  });

const ExtractBody = z
  .object({
    id: z.string().uuid(),
    orderId: z.string().nullable(),
    nrCadastral: z.string(),
    siruta: z.number().nullable(),
    uatName: z.string().nullable(),
    workspacePk: z.number().nullable(),
    cfNumber: z.string().nullable().openapi({ description: 'Null for viewers who may not see personal data' }),
    status: z.enum(['pending', 'cart', 'submitted', 'processing', 'downloading', 'completed', 'failed', 'cancelled']),
    state: z.enum(['processing', 'valid', 'expired', 'failed']),
    currentStep: z.string().nullable().openapi({ description: `One of ${CF_STEPS.join(', ')}` }),
    stepNo: z.number(),
    stepsTotal: z.number(),
    version: z.number(),
    userId: z.string().nullable(),
    type: z.enum(['portal', 'admin']),
    adminOrderedBy: z.string().nullable(),
    issuedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
    documentName: z.string().nullable(),
    downloadUrl: z.string().nullable(),
    error: z.string().nullable(),
    reconcileAt: z.string().nullable().openapi({ description: 'Set while an admin must reconcile a submit the portal did not list' }),
    cancellable: z.boolean().openapi({ description: 'Whether PATCH {status: cancelled} is accepted now: pending and not yet about to be submitted' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('CfExtract');

const SessionBody = z.object({
  action: z.enum(['connect', 'disconnect']),
  username: z.string().min(1).max(200).optional(),
  password: z.string().min(1).max(200).optional(),
});
const SessionView = z.object({
  connected: z.boolean(),
  username: z.string(),
  source: z.enum(['connected', 'configured']),
  connectedAt: z.string().optional(),
  credits: z.number().optional(),
});

const OrdersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  status: z
    .enum(['pending', 'cart', 'submitted', 'processing', 'downloading', 'completed', 'failed', 'cancelled', 'reconcile'])
    .optional()
    .openapi({ description: '`reconcile`: batches waiting for an admin to reconcile an unlisted submit' }),
  mine: z.enum(['0', '1', 'true', 'false']).optional().openapi({ description: 'Only the caller’s extracts (what a non-admin always gets)' }),
  userId: UserId.optional().openapi({ description: 'Admin: only this user’s extracts' }),
  nrCad: NrCadastral.optional(),
  siruta: Siruta.optional(),
  orderId: z.string().min(1).max(40).optional(),
});
const IdQuery = z.object({ id: z.string().uuid('Identificatorul extrasului nu este valid.') });
const ParcelQuery = z.object({ nrCad: NrCadastral, siruta: Siruta });
const ExtractParams = z.object({ id: z.string().uuid('Identificatorul extrasului nu este valid.') });
const CancelBody = z.object({ status: z.literal('cancelled') });
const TestQuery = z.object({
  step: z.enum(['login', 'uats', 'search', 'order', 'download']),
  nrCad: NrCadastral.optional(),
  siruta: Siruta.optional(),
  workspacePk: WorkspacePk.optional(),
});

/** The timings given to new batches (default config.cfportal's); an integration test shortens them. */
export interface CfRouteOptions {
  /** Pause between status polls given to new batches. */
  pollIntervalMs?: number;
  /** How long a new batch waits for an unlisted submit before asking an admin to reconcile. */
  listingWaitMs?: number;
}

/**
 * A request's own calls to the certificate portal pass the one door of outside work, as the land
 * registry's do: counted in the caller's and everyone's caps (429 past them), stopped when the
 * client leaves or at the deadline. Without it they ran in the background lane, uncapped.
 */
const throughCfDoor = <T>(http: Parameters<typeof withinDeadline>[0], work: () => Promise<T>): Promise<T> =>
  withinDeadline(http, work, { message: 'Portalul de extrase CF nu a răspuns în timpul alocat cererii. Încercați din nou.' });

export function registerCfportalRoutes(router: Router, cfportal: CfportalService, opts: CfRouteOptions = {}): void {
  const pollIntervalMs = opts.pollIntervalMs ?? config.cfportal.pollIntervalMs;
  const listingWaitMs = opts.listingWaitMs ?? config.cfportal.submitListingWaitMs;
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cfportal/session',
      summary: 'The certificate-portal account orders are placed with (connected, else configured)',
      tags: TAGS,
      auth: 'session',
      response: { description: 'Account state', schema: SessionView },
    },
    () => cfportal.sessionView(),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/cfportal/session',
      summary: 'Admin: connect, switch (sign in and keep the account) or disconnect the certificate portal account (spec 4.3)',
      tags: TAGS,
      auth: 'admin',
      body: SessionBody,
      response: { description: 'Account state after the action', schema: SessionView },
      failures: {
        403: 'not an admin',
        409: 'jobs_running: batches of the account in use are unfinished; body has runningJobs (their order ids)',
        422: 'cfportal_credentials_invalid',
        429: 'rate_limited: too many portal calls in flight',
        502: 'upstream_error',
        503: 'portal_maintenance',
        504: 'upstream_timeout',
      },
    },
    ({ body, req, res }) =>
      throughCfDoor({ req, res }, () =>
        body.action === 'connect' ? cfportal.connect({ username: body.username, password: body.password }) : cfportal.disconnect(),
      ),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/cfportal/order',
      summary: 'Order CF extracts for one parcel or a list; queued FIFO per portal account (spec 3.2, 4.3)',
      tags: TAGS,
      auth: 'session',
      // Central-API (pilot) users order through /api/cf/* under their own token, never the office's account.
      gate: (req) => {
        legacyWriteGate(req);
        cfExtractGate(req);
      },
      body: OrderBody,
      response: { status: 202, description: 'Queued', schema: z.object({ orderId: z.string(), extracts: z.array(ExtractBody) }) },
      failures: {
        402: 'insufficient_credits: the balance does not cover this order (plus earlier queued ones); body has credits and needed',
        403: 'forbidden: the caller may not see personal data (basic panel, scope basic or none), or orders for another user without being an admin',
        409:
          'order_in_progress: a parcel has an unfinished extract (force does not override it); body has extractId. ' +
          'order_unsettled: the parcel\'s last batch failed after its submit was sent, so it may be paid (only an admin with force orders it again); body has extractId and unsettled. ' +
          'catalog_hit: a parcel has a valid extract (send force: true to order anyway); body has hits (each with its downloadUrl) and downloadUrl',
        410: 'gone_central_api: central-API users order through POST /api/cf/order',
        429: 'rate_limited: the live credit read found the caller (or everyone) with too many portal calls in flight; nothing ordered',
        504: 'upstream_timeout: the live credit read did not answer in time; nothing ordered',
      },
    },
    async ({ req, res, body, auth }) => {
      const parcels = body.parcels ?? [{ nrCadastral: body.nrCadastral!, siruta: body.siruta!, workspacePk: body.workspacePk, userId: body.userId }];
      const placed = await cfportal.placeOrder(
        { userId: auth!.user.id, isAdmin: auth!.isAdmin, hidePersonal: hidesPersonalData(auth!) },
        { parcels, force: body.force ?? false },
        (read) => throughCfDoor({ req, res }, read),
      );
      const batch: CfOrderBatchInput = {
        orderId: placed.orderId,
        account: placed.account,
        pollIntervalMs,
        listingWaitMs,
      };
      try {
        await start('cf-order-queue', { account: placed.account }, { signalArgs: [batch] });
      } catch (err) {
        // Written but never queued: the extracts would wait for good, holding their parcels and credits.
        await cfportal.abandonOrder(placed.orderId);
        throw err;
      }
      return reply(202, { orderId: placed.orderId, extracts: placed.extracts });
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cfportal/orders',
      summary: 'CF extracts with state and current step, newest first, paged: the caller’s own; an admin sees everyone’s (spec 4.3)',
      tags: TAGS,
      auth: 'session',
      query: OrdersQuery,
      response: { description: 'Extracts', schema: z.object({ items: z.array(ExtractBody), total: z.number() }) },
      failures: { 403: 'userId of someone else, asked by a non-admin' },
    },
    ({ query, auth }) => {
      const a = auth!;
      const own = query.mine === '1' || query.mine === 'true' || !a.isAdmin;
      if (query.userId && query.userId !== a.user.id && !a.isAdmin) throw errors.forbidden('Doar administratorii pot vedea comenzile altor utilizatori.');
      return cfportal.listExtracts(
        {
          limit: query.limit,
          offset: query.offset,
          status: query.status,
          userId: own ? a.user.id : query.userId,
          nrCadastral: query.nrCad,
          siruta: query.siruta,
          orderId: query.orderId,
        },
        { hidePersonal: hidesPersonalData(a) },
      );
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cfportal/orderers',
      summary: 'Admin: the users who ordered CF extracts, with their count (the orders list’s user filter)',
      tags: TAGS,
      auth: 'admin',
      response: {
        description: 'Orderers',
        schema: z.object({ items: z.array(z.object({ userId: z.string(), email: z.string().nullable(), name: z.string().nullable(), count: z.number() })) }),
      },
    },
    async () => ({ items: await cfportal.orderers() }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cfportal/parcel',
      summary: 'One parcel’s CF extract, whoever ordered it: the unfinished one, else the valid one, else the newest',
      tags: TAGS,
      auth: 'session',
      query: ParcelQuery,
      response: { description: 'The extract, or null when the parcel has none', schema: z.object({ extract: ExtractBody.nullable() }) },
    },
    async ({ query, auth }) => ({
      extract: await cfportal.parcelExtract({ nrCadastral: query.nrCad, siruta: query.siruta }, { hidePersonal: hidesPersonalData(auth!) }),
    }),
  );

  defineRoute(
    router,
    {
      method: 'patch',
      path: '/api/cfportal/extracts/:id',
      summary: 'Cancel a pending extract (pending → cancelled, its credit released), by whoever ordered it or an admin',
      tags: TAGS,
      auth: 'session',
      params: ExtractParams,
      body: CancelBody,
      response: { description: 'The cancelled extract', schema: ExtractBody },
      failures: { 403: 'neither the orderer nor an admin', 404: 'unknown extract', 409: 'invalid_state: the extract is no longer pending; body has status' },
    },
    ({ params, auth }) => cfportal.cancelExtract(params.id, { userId: auth!.user.id, isAdmin: auth!.isAdmin, hidePersonal: hidesPersonalData(auth!) }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cfportal/credits',
      summary: 'Live credit balance of the portal account, and what queued orders will still spend',
      tags: TAGS,
      auth: 'session',
      response: {
        description: 'Credits',
        schema: z.object({ account: z.string(), credits: z.number(), reserved: z.number(), available: z.number(), costPerExtract: z.number() }),
      },
      failures: { 429: 'rate_limited: the caller (or everyone) has too many portal calls in flight', 502: 'upstream_error', 503: 'portal_maintenance', 504: 'upstream_timeout' },
    },
    ({ req, res }) => throughCfDoor({ req, res }, () => cfportal.credits()),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cfportal/download',
      summary: 'The PDF of a completed extract, streamed from object storage (legacy records: inline pdfData)',
      tags: TAGS,
      auth: 'session',
      gate: cfExtractGate,
      query: IdQuery,
      response: { description: 'PDF attachment', contentType: 'application/pdf' },
      failures: {
        403: 'forbidden: the caller may not see personal data (basic panel, scope basic or none); an extract names the owners',
        404: 'Unknown extract',
        409: 'cf_not_ready: the extract is not completed',
      },
    },
    async ({ query, res }) => {
      const { fileName, body } = await cfportal.openExtract(query.id);
      res.status(200).set({
        'Content-Type': 'application/pdf',
        'Content-Disposition': contentDisposition(fileName),
        'Cache-Control': 'private, no-store',
      });
      if (Buffer.isBuffer(body)) res.end(body);
      else await pipeline(body, res);
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/cfportal/test',
      summary: 'Admin diagnostic of the certificate portal, one step at a time; spends no credit',
      tags: TAGS,
      auth: 'admin',
      query: TestQuery,
      response: { description: '{step, ok, ...} of the step; CF numbers are null for an admin who may not see personal data' },
      failures: { 422: 'cfportal_credentials_invalid', 502: 'upstream_error', 503: 'portal_maintenance' },
    },
    async ({ query, auth, req, res }) => {
      const started = Date.now();
      // An admin diagnostic, still through the viewer rule: being an admin grants no personal data.
      const data = await throughCfDoor({ req, res }, () => cfportal.diagnose(query, { hidePersonal: hidesPersonalData(auth!) }));
      return { step: query.step, ok: true, ms: Date.now() - started, ...data };
    },
  );
}
