/**
 * Activities of the `exports` task queue: thin calls into domain/exports. The build heartbeats
 * while ogr2ogr runs (a dead worker is noticed within the heartbeat timeout) and is retried from
 * the start: its files live in a temporary directory of the worker that ran it.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { BUNDLE_LAYERS, describeDecision, type ExportMode, type FreshnessDecision, type PipelineStep } from '../domain/exports/rules';
import type { ExportsService, StoredExport } from '../domain/exports/service';
import { keptAlive } from './heartbeat';

/** Heartbeat cadence while a build runs; the workflow's heartbeatTimeout is a few times this. */
const HEARTBEAT_EVERY_MS = 5_000;

export interface PlanInput {
  siruta: number;
  /** Bundle mode, or one layer. */
  mode?: ExportMode;
  layerId?: string;
  includeNoGeometry: boolean;
}

export interface PlannedStep extends FreshnessDecision {
  /** Romanian explanation for the pipeline report. */
  description: string;
}

export interface PlanResult {
  uatName: string | null;
  steps: PlannedStep[];
}

export interface BuildInput {
  jobId: string;
  userId: string;
  siruta: number;
  mode?: ExportMode;
  layerId?: string;
  includeNoGeometry: boolean;
  hidePersonal: boolean;
  pipelineBefore: PipelineStep[];
}

export interface NotifyInput {
  userId: string;
  jobId: string;
  fileName: string;
  downloadUrl: string;
  uatLabel: string;
}

export function createExportActivities(exports: ExportsService) {
  // The build heartbeats its own step (the details of its report); the short steps beat empty.
  const quick = keptAlive({
    /** Spec 8: which layers (and the no-geometry import) must be synced before building. */
    async planExportSync(input: PlanInput): Promise<PlanResult> {
      const uat = await exports.uatInfo(input.siruta);
      if (!uat.known && !uat.hasFeatures) {
        throw ApplicationFailure.nonRetryable(`UAT ${input.siruta} nu există în baza de date.`, 'NotFoundError');
      }
      if (input.layerId && !(await exports.layerExists(input.layerId))) {
        throw ApplicationFailure.nonRetryable(`Stratul ${input.layerId} nu există în catalog.`, 'NotFoundError');
      }
      const layerIds = input.layerId ? [input.layerId] : BUNDLE_LAYERS[input.mode ?? 'base'];
      const decisions = await exports.syncPlan({
        siruta: input.siruta,
        layerIds,
        includeNoGeometry: input.mode === 'magic' && input.includeNoGeometry,
      });
      return { uatName: uat.name, steps: decisions.map((d) => ({ ...d, description: describeDecision(d) })) };
    },

    /** The no-geometry import an export ran, recorded for the 48 h rule of spec 8. */
    async recordNoGeometryImport(input: { siruta: number; imported: number; deleted: number; startedAt: string }): Promise<void> {
      await exports.recordNoGeometryImport({
        ...input,
        startedAt: new Date(input.startedAt),
        workflowId: Context.current().info.workflowExecution?.workflowId,
      });
    },

    /** In-app notification `export-ready` (CONTRACT.md section 3). */
    async notifyExportReady(input: NotifyInput): Promise<boolean> {
      return exports.notifyExportReady({
        userId: input.userId,
        title: `Exportul pentru ${input.uatLabel} este gata`,
        body: `Fișierul ${input.fileName} poate fi descărcat.`,
        link: input.downloadUrl,
      });
    },
  });
  return {
    ...quick,
    /** Builds every file from the store and streams the result to S3. */
    async buildExport(input: BuildInput): Promise<StoredExport> {
      const ctx = Context.current();
      let last = 'început';
      const beat = setInterval(() => ctx.heartbeat({ last }), HEARTBEAT_EVERY_MS);
      try {
        return await exports.buildAndStore({
          jobId: input.jobId,
          userId: input.userId,
          siruta: input.siruta,
          target: input.layerId ? { kind: 'layer', layerId: input.layerId } : { kind: 'bundle', mode: input.mode ?? 'base' },
          includeNoGeometry: input.includeNoGeometry,
          hidePersonal: input.hidePersonal,
          pipelineBefore: input.pipelineBefore,
          onStep: (s) => {
            last = s.step;
            ctx.heartbeat({ last });
          },
        });
      } finally {
        clearInterval(beat);
      }
    },
  };
}

export type ExportActivities = ReturnType<typeof createExportActivities>;
