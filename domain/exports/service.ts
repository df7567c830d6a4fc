/**
 * The exports' door (docs/architecture.md "Areas"): what an export job's steps do (plan the syncs
 * it needs, build and store the file, record a no-geometry import, notify the requester), what
 * the export routes ask (does the UAT or layer exist, the finished file, a local export streamed)
 * and the ZIP writer other areas stream with. Built once per process by `domain/services.ts` and
 * handed to the export routes (api/routes/landregExports.ts), the QGIS project route and the
 * export activities (activities/exports.ts). Its pure rules are in `rules.ts`.
 *
 * GDAL's runner (gdal.ts) is exported as plain functions: the geoportal's selection export and the
 * benches run ogr2ogr with arguments of their own, with nothing of the store bound.
 */
import type { Writable } from 'node:stream';
import type { AreaDeps } from '../areaDeps';
import type { NotificationsService } from '../notifications/service';
import type { BuildOptions } from './build';
import { portalStartRecords } from '../landreg/service';
import { exportSyncPlan, layerExists, recordNoGeometryImport, uatInfo } from './store';
import { buildAndStoreExport, openExportDownload, streamLocalExport } from './stored';
import { writeZip } from './zip';

export { EXPORT_SESSION_OPTIONS, GdalError, ogr2ogr, pgConnectionEnv, pgDatasource } from './gdal';
export type { StoredExport } from './stored';

export interface ExportsDeps extends Pick<AreaDeps, 'store'> {
  /** A finished export notifies its requester (`export-ready`, the user's preference decides). */
  notifications: Pick<NotificationsService, 'notify'>;
}

export function createExportsService({ store, notifications }: ExportsDeps) {
  const db = store.pool;
  return {
    /** The store's records of portal jobs' starts, which an export's start takes (an export keeps the portal session in use, spec 3.1). */
    portalStarts: portalStartRecords(db),
    uatInfo: (siruta: number) => uatInfo(db, siruta),
    /** Whether the catalogue lists the layer; 400 for an id of the wrong shape. */
    layerExists: (layerId: string) => layerExists(db, layerId),
    /** The sync steps an export must run first (spec 8), decided from the store's sync history. */
    syncPlan: (opts: { siruta: number; layerIds: string[]; includeNoGeometry: boolean }) => exportSyncPlan(db, opts),
    /** Builds the export and streams it to S3 under the job's key. */
    buildAndStore: (opts: Omit<BuildOptions, 'db'> & { jobId: string; userId: string }) => buildAndStoreExport({ ...opts, db }),
    /** The stored export of a job, or null when there is none (yet). */
    openDownload: openExportDownload,
    /** export-local (spec 4.4): the bundle built from the store as it is, streamed as a ZIP into `out`. */
    streamLocal: (
      opts: Omit<BuildOptions, 'db' | 'target' | 'jobId' | 'pipelineBefore'> & { mode: 'base' | 'magic' },
      out: Writable,
      onReady: (fileName: string) => void,
    ) => streamLocalExport({ ...opts, db }, out, onReady),
    recordNoGeometryImport: (r: Parameters<typeof recordNoGeometryImport>[1]) => recordNoGeometryImport(db, r),
    /** In-app notification `export-ready` (CONTRACT.md section 3); whether a row was written. */
    notifyExportReady: async (n: { userId: string; title: string; body: string; link: string }) =>
      (await notifications.notify({ ...n, type: 'export-ready' })).created,
    /** Entries zipped into `out` as they are read (the QGIS project's .qgz). */
    writeZip,
  };
}

export type ExportsService = ReturnType<typeof createExportsService>;
