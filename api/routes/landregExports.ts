/**
 * UAT export routes (spec 4.4 export-bundle, export-layer-gpkg, export-local; CONTRACT.md
 * section 4; docs/exports.md):
 *   POST /api/landreg/export-bundle     {siruta, mode, includeNoGeometry?} → 202 {jobId, progressUrl, downloadUrl}
 *   POST /api/landreg/export-layer-gpkg {siruta, layerId}                  → 202 {jobId, progressUrl, downloadUrl}
 *   GET  /api/landreg/export-download   ?jobId=  the finished file, streamed from S3 (404 unknown, 409 not ready,
 *                                       403 built with personal data the caller may not see)
 *   POST /api/landreg/export-local      {siruta, mode, includeNoGeometry?} → ZIP streamed from the store
 * The two job routes are legacy writes (410 for central-API users, before validation).
 */
import { LayerId, Siruta } from '../http/schemas';
import type { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { hidesPersonalData, ownerOrAdmin, viewerOf as viewerRule, type SessionContext } from '../../domain/auth/rules';
import { legacyWriteGate } from '../http/gates';
import { defineRoute, reply } from '../http/route';
import { jobHandle, mayReadJob, progressUrl, start, type JobInput } from '../../temporal/jobs';
import { errors } from '../../domain/errors';
import { childLogger } from '../../domain/log';
import type { ExportsService } from '../../domain/exports/service';
import { contentDisposition } from '../http/contentDisposition';
import { clientGone } from '../http/download';
import { callerKey, heavyWork } from '../http/rateLimit';
import { jobWorkflowId, parseWorkflowId } from '../../temporal/ids';

const log = childLogger('exports');

/** Job kinds = workflow-id kinds (temporal/ids.ts); domain/landreg/jobs.ts lists them too. */
const EXPORT_KINDS = { bundle: 'export-bundle', layer: 'export-layer-gpkg' } as const;

export function exportDownloadUrl(jobId: string): string {
  return `/api/landreg/export-download?jobId=${encodeURIComponent(jobId)}`;
}

const Mode = z.enum(['base', 'magic']).openapi({ description: 'base: parcels and buildings with geometry; magic: every record, enriched' });

const BundleBody = z.object({
  siruta: Siruta,
  mode: Mode,
  includeNoGeometry: z.boolean().optional().openapi({ description: 'Magic only: keep records without geometry (default true)' }),
});
const LayerBody = z.object({
  siruta: Siruta,
  layerId: LayerId,
});
const LocalBody = BundleBody;
const JobAccepted = z.object({ jobId: z.string(), progressUrl: z.string(), downloadUrl: z.string() });
const DownloadQuery = z.object({ jobId: z.string().min(1).max(200) });

/**
 * The requester and their right to personal data, as the export jobs take them: the workflow
 * input carries the right, so the build never looks at a session.
 */
function viewerOf(auth: SessionContext | undefined) {
  return { userId: auth!.user.id, hidePersonal: !viewerRule(auth).personalData };
}

/** 404 unless the export's UAT, and its layer when it names one, exist. */
async function requireExportable(exports: ExportsService, { siruta, layerId }: { siruta: number; layerId?: string }): Promise<void> {
  const uat = await exports.uatInfo(siruta);
  if (!uat.known && !uat.hasFeatures) throw errors.notFound(`UAT-ul cu codul SIRUTA ${siruta} nu există.`);
  if (layerId !== undefined && !(await exports.layerExists(layerId))) throw errors.notFound(`Stratul ${layerId} nu există în catalog.`);
}

type ExportKind = (typeof EXPORT_KINDS)[keyof typeof EXPORT_KINDS];
/** What a route gives of an export job's input; the requester, their right and the URL are added here. */
type ExportRequest<K extends ExportKind> = Omit<JobInput<K>, 'userId' | 'hidePersonal' | 'downloadUrl'>;

/**
 * Starts an export job of the job table (its workflow on the store queue, its builds on the
 * exports queue) once its UAT (and layer) are known to exist; 409 `already_running` when an
 * export of the same kind for the same UAT runs. The id is drawn first: the input carries the
 * download URL made from it.
 */
async function startExport<K extends ExportKind>(exports: ExportsService, kind: K, auth: SessionContext | undefined, request: ExportRequest<K>) {
  await requireExportable(exports, request);
  const viewer = viewerOf(auth);
  const conflict = (jobId: string) =>
    errors.conflict('already_running', 'Un export de același tip pentru acest UAT rulează deja.', {
      jobId,
      progressUrl: progressUrl(jobId),
      downloadUrl: exportDownloadUrl(jobId),
    });
  const fresh = jobWorkflowId(kind, String(request.siruta));
  const input = { ...request, downloadUrl: exportDownloadUrl(fresh), ...viewer } as JobInput<K>;
  const { jobId } = await start<ExportKind>(kind, input, { jobId: fresh, startedBy: viewer.userId, conflict, portalStarts: exports.portalStarts });
  return reply(202, { jobId, progressUrl: progressUrl(jobId), downloadUrl: exportDownloadUrl(jobId) });
}

/** What the two export starts share: a legacy write answered 202 with the job's URLs. */
const exportStart = {
  method: 'post' as const,
  tags: ['landreg', 'exports'],
  auth: 'session' as const,
  gate: legacyWriteGate,
  response: { status: 202, description: 'Job started; follow progressUrl, fetch downloadUrl when done', schema: JobAccepted },
};

export function registerExportRoutes(router: Router, exports: ExportsService): void {
  defineRoute(
    router,
    {
      ...exportStart,
      path: '/api/landreg/export-bundle',
      summary: 'Export a UAT as a ZIP bundle: sync first where stale (spec 8), then build from the store (spec 4.4)',
      body: BundleBody,
      failures: { 404: 'Unknown UAT', 409: 'already_running: an export of this UAT runs', 410: 'gone_central_api' },
    },
    ({ body, auth }) => startExport(exports, EXPORT_KINDS.bundle, auth, { siruta: body.siruta, mode: body.mode, includeNoGeometry: body.includeNoGeometry }),
  );

  defineRoute(
    router,
    {
      ...exportStart,
      path: '/api/landreg/export-layer-gpkg',
      summary: 'Export one layer of a UAT as GeoPackage: sync if stale (spec 8), then build from the store',
      body: LayerBody,
      failures: { 404: 'Unknown UAT or layer', 409: 'already_running', 410: 'gone_central_api' },
    },
    ({ body, auth }) => startExport(exports, EXPORT_KINDS.layer, auth, { siruta: body.siruta, layerId: body.layerId }),
  );

  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/landreg/export-download',
      summary: 'The file of a finished export job (ZIP bundle or layer GeoPackage), streamed',
      tags: ['landreg', 'exports'],
      auth: 'session',
      query: DownloadQuery,
      response: { description: 'The export file as an attachment', contentType: ['application/zip', 'application/geopackage+sqlite3'] },
      failures: {
        403: 'forbidden: the export was built with personal data and the caller may not see personal data (basic panel, scope basic or none; admins too)',
        404: 'Unknown job, not an export, or not yours',
        409: 'export_not_ready (still running) or export_failed',
      },
    },
    async ({ query, auth, res }) => {
      const parts = parseWorkflowId(query.jobId);
      const kinds: readonly string[] = Object.values(EXPORT_KINDS);
      const unknown = () => errors.notFound('Exportul nu există.');
      const reader = { userId: auth!.user.id, isAdmin: auth!.isAdmin };
      if (!parts || !parts.runId || !kinds.includes(parts.kind)) throw unknown();
      const file = await exports.openDownload(query.jobId);
      if (file) {
        // Only the requester (or an admin) gets the file; to anyone else it does not exist.
        if (!ownerOrAdmin(reader, file.userId)) throw unknown();
        // A file built with personal data goes only to a caller who may see them now: an admin is
        // no exception, and a requester whose right was removed since the build loses the file.
        if (file.personalData && hidesPersonalData(auth)) {
          throw errors.forbidden('Exportul conține date personale (numere de carte funciară, proprietari, adrese); contul dumneavoastră nu are acces la date personale.');
        }
        const body = await file.open();
        res.status(200).set({
          'Content-Type': file.contentType,
          'Content-Disposition': contentDisposition(file.fileName),
          ...(file.bytes !== undefined ? { 'Content-Length': String(file.bytes) } : {}),
          'Cache-Control': 'private, no-store',
        });
        await pipeline(body, res);
        return;
      }
      let status: string;
      try {
        const handle = await jobHandle(query.jobId);
        if (!handle) throw unknown();
        const desc = await handle.describe();
        // Whether someone else's export runs or failed is theirs to know, as its progress is.
        if (!mayReadJob(desc, reader)) throw unknown();
        status = desc.status.name;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw unknown();
        throw err;
      }
      if (status === 'RUNNING') {
        throw errors.conflict('export_not_ready', 'Exportul nu este gata încă; urmăriți progresul.', {
          jobId: query.jobId,
          progressUrl: progressUrl(query.jobId),
        });
      }
      if (status === 'COMPLETED') throw errors.notFound('Fișierul exportului nu mai există.');
      throw errors.conflict('export_failed', 'Exportul a eșuat; porniți un export nou.', {
        jobId: query.jobId,
        progressUrl: progressUrl(query.jobId),
      });
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/landreg/export-local',
      summary: 'A UAT bundle built from the store as it is (no sync, no portal call), streamed as ZIP',
      tags: ['landreg', 'exports'],
      auth: 'session',
      body: LocalBody,
      response: { description: 'ZIP attachment', contentType: 'application/zip' },
      failures: {
        404: 'The store holds nothing for this UAT',
        429: 'The caller already has a local export building, or the server builds its maximum (rate_limited, Retry-After)',
      },
    },
    async ({ body, auth, req, res }) => {
      const uat = await exports.uatInfo(body.siruta);
      if (!uat.hasFeatures) throw errors.notFound(`Baza de date nu conține obiecte pentru UAT-ul ${body.siruta}.`);
      const release = await heavyWork.localExport.acquire(callerKey(req));
      // A client that goes away stops its build: ogr2ogr is killed and the temp directory removed.
      const signal = clientGone(res);
      try {
        await exports.streamLocal(
          { siruta: body.siruta, mode: body.mode, includeNoGeometry: body.includeNoGeometry, hidePersonal: viewerOf(auth).hidePersonal, signal },
          res,
          (fileName) => {
            res.status(200).set({
              'Content-Type': 'application/zip',
              'Content-Disposition': contentDisposition(fileName),
              'Cache-Control': 'private, no-store',
            });
          },
        );
      } catch (err) {
        if (signal.aborted) {
          log.info({ siruta: body.siruta }, 'export-local cancelled: the client went away');
          return;
        }
        // Once bytes are on the wire the status cannot change: cut the stream so the client sees
        // a broken download instead of a truncated ZIP that looks whole.
        if (res.headersSent) {
          log.error({ err, siruta: body.siruta }, 'export-local failed mid-stream');
          res.destroy();
          return;
        }
        throw err;
      } finally {
        release();
      }
    },
  );
}
