/**
 * Every workflow the workers register. The worker bundles this file (bundleWorkflowCode), so
 * a new workflow is exported here and nowhere else needs to know about it.
 */
export { sessionHousekeeping } from './sessionHousekeeping';
export { tileArchiveRebuild } from './tileArchiveRebuild';
export { enrichParcels } from './enrichParcels';
export { importNoGeometry } from './importNoGeometry';
// Parcel sync engine (issue 5, docs/sync.md)
export { layerSync } from './layerSync';
export { uatSync } from './uatSync';
export { countySync, allCountiesSync, refreshAll, autoRefresh } from './countySync';
export { portalHealth } from './portalHealth';
export { uatCatalogRefresh } from './uatCatalogRefresh';
// UAT exports (issue 8, docs/exports.md)
export { exportBundle, exportLayerGpkg } from './exportBundle';
// Scheduling (issue 21, docs/scheduling.md)
export { syncRuleScheduler, weekendSync, weekendSyncKick } from './scheduling';
