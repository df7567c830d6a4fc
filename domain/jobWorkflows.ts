/**
 * The signature of every workflow the job table names (temporal/common/jobTable.ts): what a job
 * takes and answers, by workflow type. The client side types its starts and handles by it
 * (temporal/jobs.ts `JobInput`, `JobWorkflow`), so it never imports workflow code; the workflows
 * are held to it where they are registered (workflows/index.ts), so a workflow whose input or
 * result drifts from what its starters send fails to compile. Types only: each area keeps its
 * jobs' types beside its rules (`domain/<area>/jobTypes.ts`).
 */
import type { SessionHousekeepingResult } from './auth/jobTypes';
import type { BackupRun, DatabaseBackupInput } from './backup/jobTypes';
import type { CfOrderBatchInput, CfOrderBatchResult, CfOrderQueueInput } from './cfportal/jobTypes';
import type { EnrichParcelsInput, EnrichParcelsResult, ImportNoGeometryInput, NoGeomImport } from './enrichment/jobTypes';
import type { ExportBundleInput, ExportJobResult, ExportLayerGpkgInput } from './exports/jobTypes';
import type {
  AllCountiesSyncArgs,
  AllCountiesSyncResult,
  AutoRefreshArgs,
  CatalogueRefreshResult,
  CountySyncArgs,
  LayerSyncArgs,
  LayerSyncResult,
  ManyUatsResult,
  PortalHealthResult,
  RefreshAllArgs,
  UatSyncArgs,
  UatSyncResult,
} from './landreg/jobTypes';
import type { RegistryStatusCheckArgs, RegistryStatusCheckResult } from './registry/jobTypes';
import type { SchedulerTickResult, SessionTally, WeekendSyncArgs } from './scheduling/jobTypes';
import type { OverviewArchiveBuildResult, TileArchiveRebuildInput, TileArchiveRebuildResult } from './tiles/jobTypes';

export interface JobWorkflows {
  uatSync: (args: UatSyncArgs) => Promise<UatSyncResult>;
  layerSync: (args: LayerSyncArgs) => Promise<LayerSyncResult>;
  countySync: (args: CountySyncArgs) => Promise<ManyUatsResult & { county: string }>;
  allCountiesSync: (args?: AllCountiesSyncArgs) => Promise<AllCountiesSyncResult>;
  refreshAll: (args?: RefreshAllArgs) => Promise<ManyUatsResult>;
  autoRefresh: (args?: AutoRefreshArgs) => Promise<ManyUatsResult>;
  portalHealth: () => Promise<PortalHealthResult>;
  uatCatalogRefresh: (opts?: { force?: boolean }) => Promise<CatalogueRefreshResult>;
  importNoGeometry: (input: ImportNoGeometryInput) => Promise<NoGeomImport>;
  enrichParcels: (input: EnrichParcelsInput) => Promise<EnrichParcelsResult>;
  exportBundle: (input: ExportBundleInput) => Promise<ExportJobResult>;
  exportLayerGpkg: (input: ExportLayerGpkgInput) => Promise<ExportJobResult>;
  registryStatusCheck: (args?: RegistryStatusCheckArgs) => Promise<RegistryStatusCheckResult>;
  weekendSync: (args?: WeekendSyncArgs) => Promise<SessionTally>;
  weekendSyncKick: () => Promise<'started' | 'already_running'>;
  syncRuleScheduler: () => Promise<SchedulerTickResult>;
  deliverMail: (outboxId: string) => Promise<{ outcome: string }>;
  mailOutboxSweep: () => Promise<{ restarted: number }>;
  dailyDigest: () => Promise<{ date: string; sent: number; skipped: number }>;
  tileArchiveRebuild: (input?: TileArchiveRebuildInput) => Promise<TileArchiveRebuildResult>;
  overviewArchiveBuild: () => Promise<OverviewArchiveBuildResult>;
  cfOrderQueue: (input: CfOrderQueueInput) => Promise<{ processed: number }>;
  cfOrderBatch: (input: CfOrderBatchInput) => Promise<CfOrderBatchResult>;
  databaseBackup: (input?: DatabaseBackupInput) => Promise<BackupRun>;
  backupKick: () => Promise<'started' | 'already_running'>;
  backupWatch: () => Promise<{ ok: boolean; notified: number }>;
  sessionHousekeeping: () => Promise<SessionHousekeepingResult>;
}
