/**
 * UAT exports (spec 4.4 export-bundle and export-layer-gpkg, spec 8 export freshness):
 *   1. plan: which layers (and the no-geometry import) are stale, by the freshness rules;
 *   2. sync first where stale, each sync as a CHILD workflow of the sync engine run as a sub-step
 *      (`isSubStep: true`, spec 3.3: the child does not clear its progress, the export goes on);
 *      magic bundles then run the enrichment child (magic mode enriches, spec 4.4 behaviour 3);
 *   3. build every file from the store with GDAL and stream the ZIP (or the GPKG) to S3;
 *   4. notify the user in-app (`export-ready`).
 * The shared `progress` query (temporal/common/progress.ts) answers `{status, phase, current, total,
 * message}` throughout; the progress route adds the percentage.
 * Deterministic: no I/O here; Date.now and Math.random are Temporal's replay-safe versions.
 */
import { ApplicationFailure, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ExportActivities, PlannedStep } from '../activities/exports';
import { jobIdOfRun } from '../temporal/common/jobTable';
import { TaskQueue } from '../temporal/common/queues';
import type { enrichParcels } from './enrichParcels';
import type { importNoGeometry } from './importNoGeometry';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { executeChildJob } from './childJobs';
import type { layerSync } from './layerSync';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import { layerNoun } from '../domain/text/labels';
import type { ExportBundleInput, ExportJobInput, ExportJobResult, ExportLayerGpkgInput } from '../domain/exports/jobTypes';

type PipelineStep = Parameters<ExportActivities['buildExport']>[0]['pipelineBefore'][number];

/** Activities on the exports queue (CPU/disk heavy); this workflow runs on the store queue like every job. */
const quick = proxyActivities<ExportActivities>({
  taskQueue: TaskQueue.exports,
  startToCloseTimeout: '1 minute',
  ...KEPT_ALIVE,
  retry: RETRY.store,
});
const heavy = proxyActivities<ExportActivities>({
  taskQueue: TaskQueue.exports,
  // A 200,000-parcel magic bundle builds in a few minutes; an hour means something is stuck.
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '1 minute',
  retry: RETRY.build,
});

/** Numbers of a child's result (added, removed, remoteCount, imported, enriched, ...) for the report. */
function numbersOf(result: unknown): Record<string, number> | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(result as Record<string, unknown>)) if (typeof v === 'number') out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

class Progress {
  status: ProgressState['status'] = 'running';
  error?: string;
  current = 0;
  phase = 'verificare';
  message = 'Se verifică prospețimea datelor…';
  constructor(public total: number) {}
  set(phase: string, message: string): void {
    this.phase = phase;
    this.message = message;
  }
  advance(): void {
    this.current = Math.min(this.total, this.current + 1);
  }
  /** The shared `progress` query's answer (the progress route derives the percentage). */
  snapshot(): ProgressState {
    return {
      status: this.status,
      phase: this.phase,
      current: this.current,
      total: this.total,
      message: this.message,
      ...(this.error ? { error: this.error } : {}),
    };
  }
}

/**
 * Runs a sync-engine child (layer sync, no-geometry import, enrichment) as a sub-step of this
 * export and records it. A failed child is reported and the export goes on from the store as it
 * is: the user still gets a file, and the report says what could not be refreshed.
 */
async function subStep(step: string, label: string, run: () => Promise<unknown>, doneDetail: string): Promise<PipelineStep> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  try {
    const result = await run();
    return { step, label, status: 'done', startedAt, durationMs: Date.now() - started, detail: doneDetail, fetched: numbersOf(result) };
  } catch (err) {
    return {
      step,
      label,
      status: 'failed',
      startedAt,
      durationMs: Date.now() - started,
      detail: `Eșuat (${failureMessage(err)}); exportul folosește datele existente în baza de date.`,
    };
  }
}

const skipped = (step: string, label: string, detail: string): PipelineStep => ({
  step,
  label,
  status: 'skipped',
  startedAt: new Date(Date.now()).toISOString(),
  durationMs: 0,
  detail,
});

async function runExportJob(
  input: ExportJobInput,
  target: { kind: 'bundle'; mode: 'base' | 'magic'; includeNoGeometry: boolean } | { kind: 'layer'; layerId: string },
): Promise<ExportJobResult> {
  const progress = new Progress(4);
  setHandler(progressQuery, () => progress.snapshot());
  // Its workflow id is the export's lock (`export-bundle:<siruta>`); the job id is the run's own.
  const jobId = jobIdOfRun(workflowInfo());
  const magic = target.kind === 'bundle' && target.mode === 'magic';
  const pipeline: PipelineStep[] = [];

  try {
    // 1. Freshness (spec 8).
    const t0 = Date.now();
    const plan = await quick.planExportSync({
      siruta: input.siruta,
      mode: target.kind === 'bundle' ? target.mode : undefined,
      layerId: target.kind === 'layer' ? target.layerId : undefined,
      includeNoGeometry: target.kind === 'bundle' && target.includeNoGeometry,
    });
    const uatLabel = plan.uatName ? `${plan.uatName} (${input.siruta})` : `UAT ${input.siruta}`;
    const toSync = plan.steps.filter((s) => s.sync).length;
    pipeline.push({
      step: 'freshness',
      label: 'Verificarea prospețimii datelor',
      status: 'done',
      startedAt: new Date(t0).toISOString(),
      durationMs: Date.now() - t0,
      detail: toSync === 0 ? 'Toate datele sunt proaspete; nu se sincronizează nimic.' : `${toSync} pași de sincronizare necesari.`,
    });
    // plan + each sync decision + enrichment (magic) + build + notification
    progress.total = 1 + plan.steps.length + (magic ? 1 : 0) + 2;
    progress.advance();

    // 2. Sync first where stale, each a child run as a sub-step (spec 3.3).
    const siruta = input.siruta;
    for (const s of plan.steps as PlannedStep[]) {
      const sub =
        s.kind === 'layer'
          ? {
              step: `sync:${s.layerId}`,
              label: `Sincronizare ${layerNoun(s.layerId!)}`,
              phase: 'sincronizare',
              done: `${s.description} Sincronizat din portal.`,
              run: async () =>
                (await executeChildJob<typeof layerSync, 'layer-sync'>('layer-sync', { siruta, layerId: s.layerId!, trigger: 'export', isSubStep: true })).result,
            }
          : {
              step: 'no-geometry',
              label: 'Import imobile fără geometrie',
              phase: 'import-fara-geometrie',
              done: `${s.description} Importat din lista de imobile.`,
              run: async () => {
                const t = Date.now();
                const { result: r } = await executeChildJob<typeof importNoGeometry, 'import-nogeom'>('import-nogeom', { siruta });
                // The 48 h rule of spec 8 reads this record on the next export.
                await quick.recordNoGeometryImport({ siruta, imported: r.imported, deleted: r.deleted, startedAt: new Date(t).toISOString() });
                return r;
              },
            };
      progress.set(sub.phase, s.description);
      pipeline.push(!s.sync ? skipped(sub.step, sub.label, s.description) : await subStep(sub.step, sub.label, sub.run, sub.done));
      progress.advance();
    }

    // Magic mode enriches parcels (spec 4.4 behaviour 3); the enrichment itself skips parcels
    // enriched less than 7 days ago and makes no portal call when nothing is due.
    if (magic) {
      progress.set('imbogatire', 'Îmbogățirea parcelelor (proprietari, CF, adrese)…');
      pipeline.push(
        await subStep(
          'enrich',
          'Îmbogățire parcele',
          async () => (await executeChildJob<typeof enrichParcels, 'enrich'>('enrich', { siruta })).result,
          'Parcelele noi, marcate sau îmbogățite de peste 7 zile au fost îmbogățite.',
        ),
      );
      progress.advance();
    }

    // 3. Build from the store and upload.
    progress.set('construire', 'Se construiesc fișierele (GeoPackage, CSV, DXF, rapoarte) și se încarcă arhiva…');
    const stored = await heavy.buildExport({
      jobId,
      userId: input.userId,
      siruta: input.siruta,
      mode: target.kind === 'bundle' ? target.mode : undefined,
      layerId: target.kind === 'layer' ? target.layerId : undefined,
      includeNoGeometry: target.kind === 'bundle' && target.includeNoGeometry,
      hidePersonal: input.hidePersonal,
      pipelineBefore: pipeline,
    });
    pipeline.push(...stored.pipeline);
    progress.advance();

    // 4. Notify.
    progress.set('notificare', 'Se trimite notificarea…');
    const t4 = Date.now();
    const notified = await quick.notifyExportReady({
      userId: input.userId,
      jobId,
      fileName: stored.fileName,
      downloadUrl: input.downloadUrl,
      uatLabel,
    });
    pipeline.push({
      step: 'notify',
      label: 'Notificare „export gata”',
      status: notified ? 'done' : 'skipped',
      startedAt: new Date(t4).toISOString(),
      durationMs: Date.now() - t4,
      detail: notified ? 'Notificare în aplicație trimisă.' : 'Notificările de export sunt dezactivate în preferințe.',
    });
    progress.advance();
    progress.set('gata', `Exportul este gata: ${stored.fileName}`);
    progress.status = 'done';

    return {
      ...stored,
      siruta: input.siruta,
      kind: target.kind,
      mode: target.kind === 'bundle' ? target.mode : null,
      layerId: target.kind === 'layer' ? target.layerId : null,
      downloadUrl: input.downloadUrl,
      pipelineAll: pipeline,
    };
  } catch (err) {
    const cause = failureMessage(err);
    progress.set('eroare', `Exportul a eșuat: ${cause}`);
    progress.status = 'failed';
    progress.error = cause;
    if (err instanceof ApplicationFailure) throw err;
    throw ApplicationFailure.nonRetryable(`Exportul a eșuat: ${cause}`, 'ExportFailedError');
  }
}

/** `POST /api/landreg/export-bundle` (spec 4.4). */
export async function exportBundle(input: ExportBundleInput): Promise<ExportJobResult> {
  return runExportJob(input, {
    kind: 'bundle',
    mode: input.mode,
    includeNoGeometry: input.mode === 'magic' && (input.includeNoGeometry ?? true),
  });
}

/** `POST /api/landreg/export-layer-gpkg` (spec 4.4): sync the layer if stale, then one GPKG. */
export async function exportLayerGpkg(input: ExportLayerGpkgInput): Promise<ExportJobResult> {
  return runExportJob(input, { kind: 'layer', layerId: input.layerId });
}
