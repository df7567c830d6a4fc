/**
 * `importNoGeometry`: step N of a sync rule (spec 2.6) and of the weekend deep sync
 * (`import_nogeom`, spec 3.4). One activity on the landreg queue scans the UAT's immovable list
 * against the remote parcel layer and stores the immovables without geometry (stale ones deleted
 * first, spec 4.4 "Sync behaviours" 4). Callers run it as a child workflow with `{siruta}`.
 */
import { proxyActivities, setHandler } from '@temporalio/workflow';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import type { EnrichmentPortalActivities, NoGeomImport } from '../activities/enrichment';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import type { ImportNoGeometryInput } from '../domain/enrichment/jobTypes';

const landreg = proxyActivities<EnrichmentPortalActivities>({
  taskQueue: TaskQueue.landreg,
  // A 200,000-parcel UAT is ~400 pages at the portal's pace; pages heartbeat.
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: RETRY.portalLong,
});

export interface NoGeomProgress {
  siruta: number;
  status: 'running' | 'done';
  phase: 'scanning' | 'done';
  percent: number;
  message: string;
  result?: NoGeomImport;
}

/** What the import shows beyond the common progress record. */
export type NoGeomDetail = Omit<NoGeomProgress, 'status' | 'phase' | 'message'>;

export async function importNoGeometry(input: ImportNoGeometryInput): Promise<NoGeomImport> {
  const progress: NoGeomProgress = { siruta: input.siruta, status: 'running', phase: 'scanning', percent: 0, message: 'Se caută imobilele fără geometrie…' };
  setHandler(progressQuery, (): ProgressState<NoGeomDetail> => {
    const { status, phase, message, ...detail } = progress;
    return { status, phase, message, current: status === 'done' ? 1 : 0, total: 1, detail };
  });
  const result = await landreg.importNoGeometry({ siruta: input.siruta, workspacePk: input.workspacePk });
  Object.assign(progress, {
    status: 'done',
    phase: 'done',
    percent: 100,
    result,
    message: `Importate ${result.imported} imobile fără geometrie; șterse ${result.deleted} înregistrări vechi.`,
  });
  return result;
}
