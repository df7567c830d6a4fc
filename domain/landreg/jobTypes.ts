/**
 * What the land-registry sync jobs take and answer (workflows/uatSync.ts, layerSync.ts,
 * countySync.ts, portalHealth.ts): shared by the workflows and their starters
 * (domain/jobWorkflows.ts), so the client side types its starts without importing workflow code.
 */
import type { GisSyncRun, SyncTrigger } from './sync/store';
import type { LayerChangeCounts } from './sync/rules';
import type { JobUat } from './jobs';

export type { CatalogueRefreshResult } from './catalogue';
export type { CountyRefreshInput } from './sync/county';
export type { LayerSyncInput, LayerSyncPlan } from './sync/engine';
export type { JobUat, JobUatSelection } from './jobs';
export type { GisSyncRun, SyncTrigger };

export type SyncMode = 'base' | 'magic';

export interface UatSyncArgs {
  siruta: number;
  layers: string[];
  mode?: SyncMode;
  forceFullSync?: boolean;
  trigger?: SyncTrigger;
  /** Default true; tests switch the tile rebuild off so no orphan rebuild outlives them. */
  requestTileRebuild?: boolean;
  /** Step N of a sync rule (spec 2.6): import the parcels without geometry after the layers. */
  importNoGeometry?: boolean;
}

export interface UatSyncResult {
  siruta: number;
  mode: SyncMode;
  runs: LayerSyncResult[];
  added: number;
  removed: number;
  /** Stored features whose cadastral number, area or geometry changed. */
  changed: number;
  /** What changed, by layer (the runs' counts). */
  layers: LayerChangeCounts[];
  /** The same in Romanian, as the progress message and the notifications say it. */
  summary: string;
  /** Magic mode: the `enrichParcels` child's result. */
  enrichment?: { status: 'done'; result: unknown };
  tileRebuildRequested: boolean;
}

export interface LayerSyncArgs {
  siruta: number;
  layerId: string;
  forceFullSync?: boolean;
  trigger?: SyncTrigger;
  /**
   * Spec 3.3: run as a sub-step of an export, the finished sync leaves progress `running` (the
   * export goes on building files); standalone it ends `done`.
   */
  isSubStep?: boolean;
}

export interface LayerSyncResult extends GisSyncRun {
  pages: number;
}

export interface UatOutcome {
  siruta: number;
  name: string;
  /** `skipped`: another job (a user's sync of the UAT) held it; `runningJobId` names that job. */
  status: 'done' | 'failed' | 'skipped';
  runningJobId?: string;
  added: number;
  removed: number;
  changed: number;
  layers: LayerChangeCounts[];
  error?: string;
}

export interface ManyUatsResult {
  uats: UatOutcome[];
  done: number;
  failed: number;
  skipped: number;
  added: number;
  removed: number;
  changed: number;
  /** What changed, by layer, summed over the UATs, and the same in Romanian. */
  layers: LayerChangeCounts[];
  summary: string;
  tileRebuildRequested: boolean;
}

export interface CountySyncArgs {
  county: string;
  /** Who asked: gets the in-app notification when the county is done. */
  userId?: string;
  trigger?: SyncTrigger;
  requestTileRebuild?: boolean;
  /**
   * True: every UAT through its own `uatSync`, the county's unchanged UATs too (the way before
   * issue 32 item 3; the county-refresh bench's reference). Default: unchanged UATs found and
   * recorded for the whole county at once, only the others synced one by one.
   */
  perUatPlan?: boolean;
}

export interface AllCountiesSyncArgs {
  userId?: string;
  requestTileRebuild?: boolean;
}

export interface AutoRefreshArgs {
  /** A run started outside the window (the cron route) gets this long; default 4 hours (spec 8: 01:00 to 05:00). */
  windowMs?: number;
  /** The shortest pause between two UATs. Default 30 s. */
  staggerMs?: number;
  requestTileRebuild?: boolean;
}

export interface PortalHealthResult {
  available: boolean;
  maintenance: boolean;
  consecutiveFailures: number;
}

export interface AllCountiesSyncResult {
  counties: Array<{ county: string; done: number; failed: number; added: number }>;
}

export interface RefreshAllArgs {
  requestTileRebuild?: boolean;
  /**
   * Set by the workflow itself when it continues as new (a store of thousands of UATs): the UATs
   * still to refresh and the outcomes so far. Never from a request.
   */
  resume?: { uats: JobUat[]; outcomes: UatOutcome[] };
  /** UATs a run syncs before it continues as new (default 200; the API route never sets it). */
  uatsPerRun?: number;
}
