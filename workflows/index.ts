/**
 * Every workflow the workers register. The worker bundles this file (bundleWorkflowCode), so
 * a new workflow is exported here and nowhere else needs to know about it.
 */
export { sessionHousekeeping } from './sessionHousekeeping';
export { tileArchiveRebuild } from './tileArchiveRebuild';
export { overviewArchiveBuild } from './overviewArchiveBuild';
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
// Notifications (issue 18, docs/notifications.md)
export { deliverMail, mailOutboxSweep, dailyDigest } from './notifications';
// Registry status monitoring (issue 17, docs/registry.md)
export { registryStatusCheck } from './registryStatusCheck';
// CF extract ordering (issue 15, docs/cf.md)
export { cfOrderQueue, cfOrderBatch } from './cfOrders';
// Scheduling (issue 21, docs/scheduling.md)
export { syncRuleScheduler, weekendSync, weekendSyncKick } from './scheduling';
// Backups (issue 41, docs/operations.md "Backups")
export { databaseBackup, backupKick, backupWatch } from './backup';
