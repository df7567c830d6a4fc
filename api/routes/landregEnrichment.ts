/**
 * Enrichment and cadastral search routes (spec 4.4 search, search-owner, no-geom-scan,
 * uat-dashboard; spec 4.1 geoportal enrich; shapes of CONTRACT.md section 4). Each handler parses,
 * calls one domain function of domain/enrichment/ with the caller as viewer, and answers.
 */
import { Siruta, WorkspacePk } from '../http/schemas';
import type { Router } from 'express';
import { z } from 'zod';
import { viewerOf } from '../../domain/auth/rules';
import { legacyWriteGate } from '../http/gates';
import { defineRoute } from '../http/route';
import { requestCaller, withinDeadline } from '../http/deadline';
import { MAX_CADASTRAL_NUMBERS, NO_GEOM_SCAN_TIMEOUT_MS, OWNER_NAME_MAX } from '../../domain/enrichment/rules';
import type { EnrichmentService } from '../../domain/enrichment/service';

const Enrichment = z.record(z.string(), z.unknown()).nullable().openapi({ description: 'Enrichment keys of CONTRACT.md section 3 (redacted for the viewer)' });

const ParcelView = z.object({
  featureId: z.string().uuid().nullable(),
  siruta: z.number().int(),
  cadastralRef: z.string().nullable(),
  immovablePk: z.number().int().nullable(),
  restricted: z.boolean().openapi({ description: 'Basic panel: only NR_CAD, SIRUTA, SUPRAFATA are given' }),
  enrichment: Enrichment,
});

const SearchBody = z.object({
  siruta: Siruta,
  cadastralNumbers: z.union([z.string().trim().min(1).max(5000), z.array(z.string().trim().min(1).max(100)).min(1).max(500)]).openapi({
    description: `Comma-separated numbers, or an array; at most ${MAX_CADASTRAL_NUMBERS} distinct numbers (400 beyond)`,
  }),
  workspacePk: WorkspacePk.optional(),
});
const SearchAnswer = z.object({
  siruta: z.number().int(),
  workspacePk: z.number().int(),
  workspaceSource: z.enum(['request', 'store', 'nomenclature', 'county_scan']),
  results: z.array(
    ParcelView.extend({
      matchedBy: z.enum(['cadastral', 'landbook']),
      areaValue: z.number().nullable().openapi({ description: 'The cadastral layer’s area of the office’s stored copy, m² (null when not stored)' }),
    }),
  ),
  notFound: z.array(z.string()),
});

const OwnerBody = z.object({
  name: z.string().trim().min(1, 'Numele lipsește.').max(OWNER_NAME_MAX),
  siruta: Siruta,
  workspacePk: WorkspacePk.optional(),
});
const OwnerAnswer = z.object({
  name: z.string(),
  siruta: z.number().int(),
  source: z.enum(['local', 'online', 'none']),
  results: z.array(
    z.object({
      source: z.enum(['local', 'online']),
      featureId: z.string().uuid().nullable(),
      siruta: z.number().int(),
      cadastralRef: z.string().nullable(),
      immovablePk: z.number().int().nullable(),
      nrCF: z.string().nullable(),
      owners: z.array(z.object({ name: z.string(), share: z.string().nullable(), current: z.boolean() })),
    }),
  ),
});

const ScanBody = z.object({ siruta: Siruta, workspacePk: WorkspacePk.optional() });
const ScanAnswer = z.object({
  siruta: z.number().int(),
  workspacePk: z.number().int(),
  totalImmovables: z.number().int(),
  withGeometry: z.number().int(),
  withoutGeometry: z.number().int(),
  remoteCladiriCount: z.number().int(),
  matchedByRef: z.number().int(),
  matchedById: z.number().int(),
  scannedAt: z.string(),
});

const DashboardQuery = z.object({ siruta: Siruta });
const Dashboard = z.object({
  siruta: z.number().int(),
  uatName: z.string().nullable(),
  county: z.string().nullable(),
  parcels: z.object({ total: z.number().int(), withGeometry: z.number().int(), noGeometry: z.number().int(), enriched: z.number().int() }),
  totalArea: z.number(),
  intravilan: z.array(z.object({ value: z.enum(['DA', 'NU', 'MIXT', 'NECUNOSCUT']), parcels: z.number().int(), area: z.number() })),
  landUse: z.array(z.object({ categorie: z.string(), parcels: z.number().int(), area: z.number() })),
  topOwners: z.array(z.object({ name: z.string(), parcels: z.number().int(), area: z.number() })).nullable(),
  buildings: z.object({ total: z.number().int(), withLegalDocuments: z.number().int(), withoutLegalDocuments: z.number().int(), unknown: z.number().int() }),
  generatedAt: z.string(),
});

const EnrichBody = z.union([
  z.object({ id: z.string().uuid(), force: z.boolean().optional() }),
  z.object({ objectId: z.coerce.number().int(), siruta: Siruta, force: z.boolean().optional() }),
]);
const EnrichAnswer = z.object({
  feature: ParcelView.extend({
    id: z.string().uuid(),
    objectId: z.number().int(),
    areaValue: z.number().nullable(),
    geometrySource: z.string().nullable(),
    enrichedAt: z.string().nullable(),
    cached: z.boolean().openapi({ description: 'Answered from the store: enriched under 7 days ago (spec 8)' }),
  }),
});

/** What the portal itself may answer, as every route that calls it documents it. */
const PORTAL_FAILURES = { 502: 'Portal error', 503: 'Portal in maintenance' };

/** Spec section 8: the scan stops after 120 s on the server (the client has the same limit). */
const scanLimit = { ms: NO_GEOM_SCAN_TIMEOUT_MS, message: 'Scanarea imobilelor fără geometrie a depășit limita de 120 de secunde.' };

export function registerLandregEnrichmentRoutes(router: Router, enrichment: EnrichmentService): void {
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/search',
      summary: 'Search cadastral numbers of one UAT on the portal (spec 2.4 rule 4, 4.4)',
      tags: ['landreg'],
      auth: 'session',
      body: SearchBody,
      response: { description: 'Parcels with their enrichment, per number', schema: SearchAnswer },
      failures: { 400: `Bad input, more than ${MAX_CADASTRAL_NUMBERS} numbers, or refused by the portal (unknown UAT)`, 404: 'UAT unknown to the UAT catalogue or to the portal (no portal call for a SIRUTA the catalogue does not know)', 429: 'Past the per-user or global cap of portal-bound requests (Retry-After)', ...PORTAL_FAILURES, 504: 'Over the overall deadline' },
    },
    ({ body, auth, req, res }) => withinDeadline({ req, res }, () => enrichment.searchCadastral(body, viewerOf(auth))),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/search-owner',
      summary: 'Owner search: local store first, portal fallback (spec 4.4)',
      tags: ['landreg'],
      auth: 'session',
      body: OwnerBody,
      response: { description: 'Parcels whose current or former owners match; each flags its source', schema: OwnerAnswer },
      failures: { 403: 'Basic panel or a scope without owner data', ...PORTAL_FAILURES },
    },
    ({ body, auth, req, res }) => withinDeadline({ req, res }, () => enrichment.searchOwner(body, viewerOf(auth))),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/no-geom-scan',
      summary: 'Counts of immovables with and without geometry in one UAT (spec 4.4)',
      tags: ['landreg'],
      auth: 'session',
      body: ScanBody,
      response: { description: 'Scan counts', schema: ScanAnswer },
      failures: { 404: 'UAT unknown to the portal', ...PORTAL_FAILURES, 504: 'Over the 120 s limit' },
    },
    async ({ body, req, res }) => {
      const deadline = Date.now() + NO_GEOM_SCAN_TIMEOUT_MS;
      const { missing: _missing, ...counts } = await withinDeadline({ req, res }, () => enrichment.scanNoGeometry(body.siruta, { workspacePk: body.workspacePk, deadline }), scanLimit);
      return counts;
    },
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/uat-dashboard',
      summary: 'UAT statistics from the local store (spec 4.4)',
      tags: ['landreg'],
      auth: 'session',
      query: DashboardQuery,
      response: { description: 'Areas, intravilan split, land use, top owners, buildings', schema: Dashboard },
      failures: {
        404: 'No local data for the UAT',
        429: 'rate_limited: the caller (or everyone) has too many UAT-wide reads in flight (HEAVY_READ_MAX_PER_USER, HEAVY_READ_MAX_CONCURRENT)',
      },
    },
    ({ req, res, query, auth }) => enrichment.uatDashboard(query.siruta, viewerOf(auth), requestCaller({ req, res })),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/geoportal/enrich',
      summary: 'Enrich one stored parcel through the cadastral search (spec 4.1); 410 for central-API users',
      tags: ['geoportal'],
      auth: 'session',
      gate: legacyWriteGate,
      body: EnrichBody,
      response: { description: 'The parcel with its stored enrichment', schema: EnrichAnswer },
      failures: { 404: 'Parcel not stored, or unknown to the portal', 410: 'Central-API user (legacy write route)', ...PORTAL_FAILURES },
    },
    async ({ body, auth, req, res }) => {
      const ref = 'id' in body ? { id: body.id } : { siruta: body.siruta, objectId: body.objectId };
      return { feature: await withinDeadline({ req, res }, () => enrichment.enrichOne(ref, viewerOf(auth), body.force ?? false)) };
    },
  );
}
