/**
 * One UAT: its layers synced one after another as `layerSync` children (jobs `sync` and
 * `sync-background`, spec 4.4), then, in magic mode, the enrichment of its parcels; after a sync
 * that added features, a tile archive rebuild is requested (spec 4.4 "Sync behaviours" 5).
 */
import { setHandler } from '@temporalio/workflow';
import { describeSyncChanges, layerName } from '../domain/landreg/rules';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { executeChildJob } from './childJobs';
import type { enrichParcels } from './enrichParcels';
import type { importNoGeometry } from './importNoGeometry';
import type { layerSync } from './layerSync';
import { startTileArchiveRebuild } from './tileArchiveRebuild';
import type { LayerSyncResult, UatSyncArgs, UatSyncResult } from '../domain/landreg/jobTypes';

export async function uatSync(args: UatSyncArgs): Promise<UatSyncResult> {
  const mode = args.mode ?? 'base';
  const steps = args.layers.length + (args.importNoGeometry ? 1 : 0) + (mode === 'magic' ? 1 : 0);
  const progress: ProgressState = { status: 'running', phase: 'sync', current: 0, total: steps, message: `Sincronizare UAT ${args.siruta}…` };
  setHandler(progressQuery, () => progress);

  const runs: LayerSyncResult[] = [];
  try {
    for (const layerId of args.layers) {
      progress.phase = `sync:${layerId}`;
      progress.message = `Se sincronizează ${layerName(layerId)}…`;
      const child = await executeChildJob<typeof layerSync, 'layer-sync'>('layer-sync', {
        siruta: args.siruta,
        layerId,
        forceFullSync: args.forceFullSync,
        trigger: args.trigger ?? 'manual',
      });
      runs.push(child.result);
      progress.current++;
    }

    if (args.importNoGeometry) {
      progress.phase = 'import_nogeom';
      progress.message = 'Se importă parcelele fără geometrie…';
      await executeChildJob<typeof importNoGeometry, 'import-nogeom'>('import-nogeom', { siruta: args.siruta });
      progress.current++;
    }

    let enrichment: UatSyncResult['enrichment'];
    if (mode === 'magic') {
      // Spec 4.4 "Sync behaviours" 3: magic mode enriches the parcels (the enrichment engine's workflow).
      progress.phase = 'enrich';
      progress.message = 'Se îmbogățesc parcelele…';
      const { result } = await executeChildJob<typeof enrichParcels, 'enrich'>('enrich', { siruta: args.siruta });
      enrichment = { status: 'done', result };
      progress.current++;
    }

    const added = runs.reduce((s, r) => s + r.added, 0);
    const removed = runs.reduce((s, r) => s + r.removed, 0);
    const changed = runs.reduce((s, r) => s + r.changed, 0);
    const layers = runs.map((r) => ({ layerId: r.layerId, added: r.added, removed: r.removed, changed: r.changed }));
    const summary = describeSyncChanges(layers);
    const tileRebuildRequested = added > 0 && args.requestTileRebuild !== false ? await startTileArchiveRebuild() : false;

    progress.status = 'done';
    progress.phase = 'done';
    progress.message = `UAT ${args.siruta}: ${summary}.`;
    return { siruta: args.siruta, mode, runs, added, removed, changed, layers, summary, ...(enrichment ? { enrichment } : {}), tileRebuildRequested };
  } catch (err) {
    progress.status = 'failed';
    progress.phase = 'failed';
    progress.error = failureMessage(err);
    progress.message = 'Sincronizarea UAT-ului a eșuat.';
    throw err;
  }
}
