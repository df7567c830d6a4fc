/**
 * What the export jobs take and answer (workflows/exportBundle.ts): shared by the workflow and
 * its starters (api/routes/landregExports.ts through domain/jobWorkflows.ts).
 */
import type { PipelineStep } from './reports';
import type { StoredExport } from './stored';

export interface ExportJobInput {
  siruta: number;
  /** Who asked: the notification goes to them, and only they (or an admin) may download. */
  userId: string;
  /** The viewer rule (domain/auth/viewer.ts) said no personal data: personal keys are written as null. */
  hidePersonal: boolean;
  /** Where the finished file is served (put into the notification and the result). */
  downloadUrl: string;
}

export interface ExportBundleInput extends ExportJobInput {
  mode: 'base' | 'magic';
  /** Magic only: keep records without geometry (default true). */
  includeNoGeometry?: boolean;
}

export interface ExportLayerGpkgInput extends ExportJobInput {
  layerId: string;
}

export interface ExportJobResult extends StoredExport {
  siruta: number;
  kind: 'bundle' | 'layer';
  mode: 'base' | 'magic' | null;
  layerId: string | null;
  downloadUrl: string;
  /** Every step: freshness, syncs, build, upload, notification. */
  pipelineAll: PipelineStep[];
}

