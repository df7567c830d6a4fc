/**
 * RGI routes (spec 4.4; shapes decided here, published in the OpenAPI document, docs/api.md):
 *   POST /api/landreg/rgi/applications   {workspaceId, year, page?, size?} → {orgUnitId, total, items}
 *   GET  /api/landreg/rgi/details        ?applicationId=
 *   GET  /api/landreg/rgi/issued-docs    ?applicationId=&workspaceId=
 *   GET  /api/landreg/rgi/download-doc   ?wid=&aid=&did=[&documentTypeId=][&debug=1] → PDF `<docType>_<appNo>.pdf`, or {blocked:true};
 *                                        403 for viewers who may not see personal data (the PDF names the applicant)
 * Through the shared land-registry portal session (the landreg service's client), each under the
 * portal-bound caps and deadline (api/http/deadline.ts).
 */
import type { Router } from 'express';
import { z } from 'zod';
import { WorkspacePk } from '../http/schemas';
import { defineRoute } from '../http/route';
import { withinDeadline } from '../http/deadline';
import { errors } from '../../domain/errors';
import { contentDisposition } from '../http/contentDisposition';
import { hidesPersonalData } from '../../domain/auth/rules';
import type { LandregService } from '../../domain/landreg/service';

const TAGS = ['landreg', 'rgi'];
const Id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const WorkspaceId = WorkspacePk.openapi({ description: 'County id (workspacePk); the organisation unit is countyId * 1000 + 2' });

const Application = z.object({
  applicationId: z.number(),
  applicationNo: z.string(),
  registrationDate: z.string(),
  applicationType: z.string(),
  status: z.string(),
  workspaceId: z.number(),
  orgUnitId: z.number(),
  adminUnitId: z.number(),
  uatName: z.string(),
  cadastralNumber: z.string(),
  applicant: z.string().nullable().openapi({ description: 'Null for viewers who may not see personal data' }),
});
const Document = z.object({ documentPk: z.number(), documentTypeId: z.number(), documentType: z.string(), applicationNo: z.string(), available: z.boolean() });

const ApplicationsBody = z.object({
  workspaceId: WorkspaceId,
  year: z.number().int().min(2000).max(2099),
  page: z.number().int().min(0).max(10_000).default(0),
  size: z.number().int().min(1).max(100).default(50),
});
const DetailsQuery = z.object({ applicationId: Id });
const IssuedDocsQuery = z.object({ applicationId: Id, workspaceId: WorkspaceId });
const DownloadQuery = z.object({
  wid: WorkspaceId,
  aid: Id,
  did: Id,
  documentTypeId: Id.optional(),
  debug: z.enum(['0', '1']).optional(),
});

export function registerRgiRoutes(router: Router, landreg: LandregService): void {
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/rgi/applications',
      summary: 'RGI applications of a county (organisation unit countyId * 1000 + 2) and year',
      tags: TAGS,
      auth: 'session',
      body: ApplicationsBody,
      response: {
        description: 'One page of applications',
        schema: z.object({ workspaceId: z.number(), orgUnitId: z.number(), year: z.number(), page: z.number(), size: z.number(), total: z.number(), last: z.boolean(), items: z.array(Application) }),
      },
      failures: { 400: 'bad_request (also: the portal refused the county or year)', 502: 'upstream_error', 503: 'portal_maintenance' },
    },
    ({ body, auth, req, res }) => withinDeadline({ req, res }, () => landreg.rgiApplications(body, hidesPersonalData(auth!))),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/rgi/details',
      summary: 'One RGI application with its status history',
      tags: TAGS,
      auth: 'session',
      query: DetailsQuery,
      response: { description: 'Application', schema: Application.extend({ history: z.array(z.object({ date: z.string(), status: z.string() })) }) },
      failures: { 404: 'Unknown application' },
    },
    ({ query, auth, req, res }) => withinDeadline({ req, res }, () => landreg.rgiDetails(query.applicationId, hidesPersonalData(auth!))),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/rgi/issued-docs',
      summary: 'Documents issued for an RGI application (available: false while not ready)',
      tags: TAGS,
      auth: 'session',
      query: IssuedDocsQuery,
      response: {
        description: 'Documents',
        schema: z.object({
          applicationId: z.number(),
          workspaceId: z.number(),
          downloadable: z.boolean().openapi({ description: 'False for viewers who may not see personal data: issued documents name the applicant' }),
          items: z.array(Document),
        }),
      },
      failures: { 404: 'Unknown application', 400: 'workspaceId does not match the application' },
    },
    async ({ query, auth, req, res }) => ({
      ...(await withinDeadline({ req, res }, () => landreg.rgiIssuedDocs(query.applicationId, query.workspaceId))),
      downloadable: !hidesPersonalData(auth!),
    }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/rgi/download-doc',
      summary: 'Download an issued RGI document: actor context, confirm view, download (spec 4.4)',
      tags: TAGS,
      auth: 'session',
      query: DownloadQuery,
      response: {
        description: 'The PDF named `<docType>_<appNo>.pdf` without diacritics; JSON {blocked: true} when the document is not ready yet; with debug=1 JSON of the steps',
        contentType: 'application/pdf',
      },
      failures: { 403: 'forbidden: the caller may not see personal data, and an issued document names the applicant', 404: 'Unknown application or document' },
    },
    async ({ query, req, res, auth }) => {
      // The PDF carries the applicant's name, which the JSON routes withhold from this viewer.
      if (hidesPersonalData(auth!)) {
        throw errors.forbidden('Documentele emise poartă numele solicitantului; contul dumneavoastră nu are acces la date personale.');
      }
      const r = await withinDeadline({ req, res }, () =>
        landreg.rgiDownload({
          workspaceId: query.wid,
          applicationId: query.aid,
          documentPk: query.did,
          documentTypeId: query.documentTypeId,
        }),
      );
      if (!r) throw errors.notFound('Documentul nu există la această cerere.');
      if (query.debug === '1') {
        return r.blocked ? { blocked: true, steps: r.steps } : { blocked: false, steps: r.steps, fileName: r.fileName, bytes: r.pdf.length };
      }
      if (r.blocked) return { blocked: true };
      res.status(200).set({
        'Content-Type': 'application/pdf',
        'Content-Disposition': contentDisposition(r.fileName),
        'Cache-Control': 'private, no-store',
      });
      res.end(r.pdf);
    },
  );
}
