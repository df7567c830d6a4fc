/**
 * Builds an export's files from the store into a temporary directory, everything through GDAL
 * (`ogr2ogr` from `PG:` with SQL; see ./layers for the SQL), then hands them to ./zip:
 *
 * - magic bundle (spec 4.4 "Sync behaviours" 3): ONE GPKG with every record of the UAT (parcels
 *   with every enrichment key, rows without geometry kept with a null geometry and HAS_GEOMETRY
 *   0/1, buildings, intravilan and UAT limits), the parcels as CSV (every field quoted, UTF-8 with
 *   BOM, CRLF: Excel opens it with diacritics intact), the quality report and the export report;
 * - base bundle: one GPKG of parcels and one of buildings, geometry only, and the export report;
 * - both: a DXF per layer (explicit source and target SRS EPSG:3844; one DXF layer per source
 *   layer); a failed DXF is reported in the pipeline, never fatal;
 * - layer export: one GPKG of one layer (geometry only).
 *
 * GPKG: EPSG:3844 (`-a_srs EPSG:3844`, so gpkg_spatial_ref_sys carries organization EPSG, code
 * 3844), spatial index, human-readable table names and identifiers. No reprojection happens
 * anywhere here (3844 in, 3844 out), so the towgs84 parameters cannot make GDAL and PostGIS
 * disagree; consumers that reproject use EPSG's own definition of 3844.
 *
 * Independent conversions run side by side (GPKG, CSV, DXF, quality queries), bounded by
 * BUILD_PARALLELISM, since each is a separate ogr2ogr process or a server-side query. The
 * GeoPackage is the main deliverable and the longest conversion, so it has a lane of its own at
 * normal CPU priority; the side conversions (CSV, DXF, then the quality queries) share the other
 * lanes with their ogr2ogr niced (SIDE_CONVERSION_NICE), so on the two cores of an exports worker
 * they use what the GeoPackage leaves free instead of slowing it down (docs/exports.md,
 * "Performance"). Every ogr2ogr session runs without JIT (EXPORT_SESSION_OPTIONS).
 */
import { mapBounded } from '../concurrency';
import { makeTempDir } from '../storage/service';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/pool';
import { EPSG_3844 } from '../geo/epsg3844';
import { EXPORT_MODE_FILE_WORDS, EXPORT_MODE_LABELS } from '../text/labels';
import { EXPORT_SESSION_OPTIONS, GdalError, SIDE_CONVERSION_NICE, ogr2ogr, pgDatasource } from './gdal';
import { uatStem } from './rules';
import {
  BUNDLE_LAYERS,
  PARCELS_LAYER,
  checkSiruta,
  dxfSelectSql,
  exportLayerFor,
  geometryKindFromDimension,
  layerCountSql,
  layerSelectSql,
  ogrGeometryType,
  type ExportLayer,
  type ExportMode,
  type GeometryKind,
} from './layers';
import { qualityReport, type QualityReport } from './quality';
import { exportReportHtml, qualityReportHtml, type ExportReport, type PipelineStep, type ReportFile } from './reports';
import { layerInfos, uatInfo } from './store';
import type { ZipEntry } from './zip';

/**
 * Conversions run at once: the GeoPackage lane plus BUILD_PARALLELISM - 1 lanes of side
 * conversions (the exports queue runs two builds on two cores, workers/registry.ts).
 */
export const BUILD_PARALLELISM = 3;

export type ExportTarget =
  | { kind: 'bundle'; mode: ExportMode }
  | { kind: 'layer'; layerId: string };

export interface BuildOptions {
  siruta: number;
  target: ExportTarget;
  /** Magic only: keep NO_GEOMETRY imports and other rows without geometry (default true). */
  includeNoGeometry?: boolean;
  /** Null the personal enrichment keys (enrichment scope basic/none). */
  hidePersonal?: boolean;
  /** DXF files of each layer (default true for bundles; never for a layer export). */
  withDxf?: boolean;
  jobId?: string | null;
  /** Steps that ran before the build (freshness, syncs); the report lists them first. */
  pipelineBefore?: PipelineStep[];
  /** Called after each step (the activity heartbeats with it). */
  onStep?: (step: PipelineStep) => void;
  /** Duration of each table written into a GeoPackage (`gpkg:<table>`), for the bench; not in the report. */
  onTiming?: (what: string, ms: number) => void;
  /** Pid of each ogr2ogr started (the bench samples their memory). */
  onSpawn?: (pid: number) => void;
  db: Db;
  dbUrl?: string;
  /** Where the temporary directory goes (default config.exports.tmpDir). */
  tmpRoot?: string;
  /** Aborting stops the build: running ogr2ogr processes are killed, the temp directory removed. */
  signal?: AbortSignal;
  now?: Date;
}

export interface BuiltExport {
  dir: string;
  /** Archive entries in order; a layer export has exactly one (the GPKG). */
  entries: ZipEntry[];
  /** Download name: says which UAT, which kind and when. */
  fileName: string;
  contentType: string;
  report: ExportReport;
  quality: QualityReport | null;
  /** Features written per GPKG table. */
  counts: Record<string, number>;
  cleanup: () => Promise<void>;
}

interface LayerPlan {
  layer: ExportLayer;
  kind: GeometryKind;
}

/** `2026-03-10_1405` in Romanian wall-clock time. */
export function fileStamp(d: Date): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Bucharest',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(d)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}_${p.hour}${p.minute}`;
}

export function exportFileName(stem: string, target: ExportTarget, now: Date): string {
  const what = target.kind === 'bundle' ? `export-${EXPORT_MODE_FILE_WORDS[target.mode]}` : `strat-${exportLayerFor(target.layerId).table}`;
  return `${stem}_${what}_${fileStamp(now)}.${target.kind === 'bundle' ? 'zip' : 'gpkg'}`;
}


export async function buildExport(opts: BuildOptions): Promise<BuiltExport> {
  const db = opts.db;
  const siruta = checkSiruta(opts.siruta);
  const now = opts.now ?? new Date();
  const target = opts.target;
  const magic = target.kind === 'bundle' && target.mode === 'magic';
  const includeNoGeometry = magic && (opts.includeNoGeometry ?? true);
  const hidePersonal = opts.hidePersonal ?? false;
  const withDxf = target.kind === 'bundle' && (opts.withDxf ?? true);
  const layerIds = target.kind === 'bundle' ? BUNDLE_LAYERS[target.mode] : [target.layerId];

  const uat = await uatInfo(db, siruta);
  const stem = uatStem(siruta, uat.name);
  const infos = await layerInfos(db, layerIds);
  const dims = await db.query<{ layer_id: string; dim: number | null }>(
    `SELECT l.id AS layer_id, (SELECT max(ST_Dimension(geom)) FROM gis_features
                                 WHERE siruta = $1 AND layer_id = l.id AND geom IS NOT NULL) AS dim
       FROM unnest($2::text[]) AS l(id)`,
    [siruta, layerIds],
  );
  const dimOf = new Map(dims.rows.map((r) => [r.layer_id, r.dim]));
  const plans: LayerPlan[] = infos.map((i) => ({
    layer: exportLayerFor(i.layerId, i.name),
    kind: geometryKindFromDimension(dimOf.get(i.layerId) ?? null),
  }));

  const dir = await makeTempDir('uat-export', opts.tmpRoot);
  const cleanup = () => fs.rm(dir, { recursive: true, force: true });
  const steps: PipelineStep[] = [];
  const record = (s: PipelineStep) => {
    steps.push(s);
    opts.onStep?.(s);
    return s;
  };
  const where = uat.name ? `${uat.name} (${siruta})` : `UAT ${siruta}`;
  const ds = pgDatasource(opts.dbUrl);
  /** `side`: a conversion beside the GeoPackage (CSV, DXF), run at a lower CPU priority. */
  const run = (args: string[], side = false) =>
    ogr2ogr(args, {
      dbUrl: opts.dbUrl,
      pgOptions: EXPORT_SESSION_OPTIONS,
      nice: side ? SIDE_CONVERSION_NICE : 0,
      onSpawn: opts.onSpawn,
      signal: opts.signal,
    });
  const sqlFile = async (name: string, sql: string) => {
    const f = path.join(dir, `.${name}.sql`);
    await fs.writeFile(f, sql);
    return `@${f}`;
  };

  const plannedSteps: string[] = [];
  async function timed(step: string, label: string, fn: () => Promise<string>, fatal = true): Promise<PipelineStep> {
    const started = Date.now();
    const startedAt = new Date(started).toISOString();
    try {
      const detail = await fn();
      return record({ step, label, status: 'done', startedAt, durationMs: Date.now() - started, detail });
    } catch (err) {
      const message = err instanceof GdalError ? err.message : (err as Error).message;
      record({ step, label, status: 'failed', startedAt, durationMs: Date.now() - started, detail: `Eroare: ${message}` });
      if (fatal) throw err;
      return steps[steps.length - 1];
    }
  }

  try {
    const counts: Record<string, number> = {};
    const files: ReportFile[] = [];
    const entries: ZipEntry[] = [];
    const rowsOf = async (layerId: string, includeNullGeometry: boolean) =>
      (
        await db.query<{ n: number }>(
          layerCountSql({ siruta, layerId, includeNullGeometry, includeNoGeometryImports: includeNullGeometry }),
        )
      ).rows[0].n;

    /** One layer into a GPKG (created by the first layer, appended to by the next ones). */
    const gpkgLayer = async (file: string, p: LayerPlan, update: boolean, includeNullGeometry: boolean) => {
      const sql = layerSelectSql({
        siruta,
        layerId: p.layer.layerId,
        includeNullGeometry,
        includeNoGeometryImports: includeNullGeometry,
        hidePersonal,
        geometryKind: p.kind,
      });
      const started = Date.now();
      await run([
        '-f', 'GPKG', file, ds,
        '-sql', await sqlFile(`gpkg-${p.layer.table}`, sql),
        ...(update ? ['-update'] : []),
        '-nln', p.layer.table,
        '-a_srs', EPSG_3844,
        '-nlt', ogrGeometryType(p.kind),
        '-lco', 'SPATIAL_INDEX=YES',
        '-lco', 'GEOMETRY_NAME=geom',
        '-lco', `IDENTIFIER=${p.layer.title} — ${where}`,
        '-lco', `DESCRIPTION=${p.layer.title}, ${where}, strat ${p.layer.layerId}, EPSG:3844`,
        // One transaction per 100,000 rows: SQLite commits are the slow part of GPKG writing.
        '-gt', '100000',
      ]);
      opts.onTiming?.(`gpkg:${p.layer.table}`, Date.now() - started);
      const n = await rowsOf(p.layer.layerId, includeNullGeometry);
      counts[p.layer.table] = n;
      return n;
    };

    /** The GeoPackage lane (one after the other: one SQLite file), the side lanes, and the side tasks run last. */
    const gpkgTasks: Array<() => Promise<unknown>> = [];
    const sideTasks: Array<() => Promise<unknown>> = [];
    const lateTasks: Array<() => Promise<unknown>> = [];
    const plan = (step: string, task: () => Promise<unknown>, lane: 'gpkg' | 'side' | 'late' = 'side') => {
      plannedSteps.push(step);
      (lane === 'gpkg' ? gpkgTasks : lane === 'side' ? sideTasks : lateTasks).push(task);
    };
    const gpkgFiles: Array<{ name: string; features: Record<string, number> }> = [];

    if (magic) {
      const name = `${stem}_${EXPORT_MODE_FILE_WORDS.magic}.gpkg`;
      const features: Record<string, number> = {};
      gpkgFiles.push({ name, features });
      plan('gpkg', () =>
        timed('gpkg', 'GeoPackage cu toate înregistrările', async () => {
          let first = true;
          for (const p of plans) {
            // Every record, rows without geometry included (spec 4.4: HAS_GEOMETRY 0/1), if asked.
            features[p.layer.table] = await gpkgLayer(path.join(dir, name), p, !first, includeNoGeometry);
            first = false;
          }
          return `${name}: ${Object.entries(features).map(([k, v]) => `${k} ${v}`).join(', ')} (EPSG:3844, index spațial)`;
        }),
        'gpkg',
      );
    } else {
      for (const p of plans) {
        const name = target.kind === 'layer' ? exportFileName(stem, target, now) : `${stem}_${p.layer.table}.gpkg`;
        const features: Record<string, number> = {};
        gpkgFiles.push({ name, features });
        plan(`gpkg:${p.layer.layerId}`, () =>
          timed(`gpkg:${p.layer.layerId}`, `GeoPackage ${p.layer.title}`, async () => {
            features[p.layer.table] = await gpkgLayer(path.join(dir, name), p, false, false);
            return `${name}: ${features[p.layer.table]} obiecte cu geometrie (EPSG:3844, index spațial)`;
          }),
          'gpkg',
        );
      }
    }

    let csvName: string | null = null;
    let csvRows = 0;
    if (magic) {
      csvName = `${stem}_parcele.csv`;
      const parcels = plans.find((p) => p.layer.layerId === PARCELS_LAYER)!;
      plan('csv', () =>
        timed('csv', 'CSV parcele (toate câmpurile între ghilimele)', async () => {
          const sql = layerSelectSql({
            siruta,
            layerId: PARCELS_LAYER,
            includeNullGeometry: includeNoGeometry,
            includeNoGeometryImports: includeNoGeometry,
            hidePersonal,
            geometryKind: parcels.kind,
            asText: true,
          });
          await run([
            '-f', 'CSV', path.join(dir, csvName!), ds,
            '-sql', await sqlFile('csv', sql),
            '-nln', 'parcele',
            '-lco', 'STRING_QUOTING=ALWAYS',
            '-lco', 'WRITE_BOM=YES',
            '-lco', 'LINEFORMAT=CRLF',
          ], true);
          csvRows = await rowsOf(PARCELS_LAYER, includeNoGeometry);
          return `${csvName}: ${csvRows} rânduri, UTF-8 cu BOM, coloanele PROPRIETARI_ACTUALI și PROPRIETARI_VECHI`;
        }),
      );
    }

    let quality: QualityReport | null = null;
    if (magic) {
      plan('quality', () =>
        timed('quality', 'Raport de calitate', async () => {
          quality = await qualityReport(db, siruta, layerIds, opts.signal);
          const invalid = quality.layers.reduce((a, l) => a + l.invalidGeometries, 0);
          const dups = quality.layers.reduce((a, l) => a + l.duplicateCadastralRefs.groups, 0);
          return `${invalid} geometrii invalide reparate, ${dups} numere cadastrale duplicate`;
        }),
        // Server-side queries cannot be niced: they start once the conversions have.
        'late',
      );
    }

    const dxfFiles: string[] = [];
    if (withDxf) {
      for (const p of plans) {
        const name = `dxf/${stem}_${p.layer.table}.dxf`;
        plan(`dxf:${p.layer.layerId}`, () =>
          timed(
            `dxf:${p.layer.layerId}`,
            `DXF ${p.layer.title}`,
            async () => {
              await fs.mkdir(path.join(dir, 'dxf'), { recursive: true });
              await run([
                '-f', 'DXF', path.join(dir, name), ds,
                '-sql', await sqlFile(`dxf-${p.layer.table}`, dxfSelectSql(siruta, p.layer, p.kind)),
                // DXF has nowhere to say its SRS: both ends are stated so nothing is guessed (spec 4.1).
                '-s_srs', EPSG_3844,
                '-t_srs', EPSG_3844,
                '-nlt', 'PROMOTE_TO_MULTI',
              ], true);
              dxfFiles.push(name);
              return `${name}: strat DXF ${p.layer.dxfLayer}`;
            },
            false,
          ),
        );
      }
    }

    // Once cancelled, no step starts: a DXF step swallows its kill, and the lane would go on to
    // the next one (the quality report's scans of the whole UAT for a client that left).
    const start = (task: () => Promise<unknown>) => {
      opts.signal?.throwIfAborted();
      return task();
    };
    const gpkgLane = mapBounded(gpkgTasks, 1, start);
    const sideLanes = mapBounded([...sideTasks, ...lateTasks], Math.max(1, BUILD_PARALLELISM - 1), start);
    // Both settle before a failure propagates: no ogr2ogr may still write into `dir` at cleanup.
    const settled = await Promise.allSettled([gpkgLane, sideLanes]);
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
    // A non-fatal step (DXF) swallowed the kill: a cancelled build still ends here.
    opts.signal?.throwIfAborted();
    // The report lists steps in the order they were planned, not the order they happened to end.
    const order = (s: PipelineStep) => {
      const i = plannedSteps.indexOf(s.step);
      return i < 0 ? plannedSteps.length : i;
    };
    steps.sort((a, b) => order(a) - order(b));

    // Archive order: data files, then reports (deterministic regardless of which task ended first).
    for (const g of gpkgFiles) {
      const full = path.join(dir, g.name);
      entries.push({ name: g.name, path: full });
      files.push({ name: g.name, bytes: (await fs.stat(full)).size, features: g.features });
    }
    if (csvName) {
      const full = path.join(dir, csvName);
      entries.push({ name: csvName, path: full });
      files.push({ name: csvName, bytes: (await fs.stat(full)).size, features: { parcele: csvRows } });
    }
    for (const p of plans) {
      const name = `dxf/${stem}_${p.layer.table}.dxf`;
      if (!dxfFiles.includes(name)) continue;
      const full = path.join(dir, name);
      entries.push({ name, path: full });
      files.push({ name, bytes: (await fs.stat(full)).size });
    }

    const title =
      target.kind === 'bundle'
        ? `Export ${EXPORT_MODE_LABELS[target.mode]} — ${where}`
        : `Export strat ${plans[0].layer.title} — ${where}`;
    const report: ExportReport = {
      title,
      jobId: opts.jobId ?? null,
      siruta,
      uat: uat.name,
      county: uat.county,
      mode: target.kind === 'bundle' ? target.mode : `layer:${target.layerId}`,
      includeNoGeometry,
      personalDataHidden: hidePersonal,
      srs: 'EPSG:3844',
      generatedAt: now.toISOString(),
      files,
      pipeline: [...(opts.pipelineBefore ?? []), ...steps],
    };

    if (target.kind === 'bundle') {
      const started = Date.now();
      const qualityNow = quality as QualityReport | null;
      if (qualityNow) {
        entries.push({ name: 'raport-calitate.json', content: JSON.stringify(qualityNow, null, 2) });
        entries.push({ name: 'raport-calitate.html', content: qualityReportHtml(qualityNow, `Raport de calitate — ${where}`) });
      }
      const reportStep: PipelineStep = {
        step: 'reports',
        label: 'Rapoarte',
        status: 'done',
        startedAt: new Date(started).toISOString(),
        durationMs: 0,
        detail: qualityNow ? 'raport-export și raport-calitate (JSON și HTML)' : 'raport-export (JSON și HTML)',
      };
      report.pipeline.push(reportStep);
      steps.push(reportStep);
      reportStep.durationMs = Date.now() - started;
      entries.push({ name: 'raport-export.json', content: JSON.stringify(report, null, 2) });
      entries.push({ name: 'raport-export.html', content: exportReportHtml(report) });
      opts.onStep?.(reportStep);
    }

    return {
      dir,
      entries,
      fileName: target.kind === 'bundle' ? exportFileName(stem, target, now) : entries[0].name,
      contentType: target.kind === 'bundle' ? 'application/zip' : 'application/geopackage+sqlite3',
      report,
      quality,
      counts,
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
