/**
 * The job table (issue 28): one record per job kind, read by the one starter of the client side
 * (temporal/jobs.ts `start`) and by the one child starter of workflows (workflows/childJobs.ts
 * `executeChildJob`). Adding a kind is adding a record here. Pure, so workflows import it.
 *
 * "One at a time" locks a resource, not a kind: `lock(input)` names it (`uat:<siruta>` for every
 * sync of that UAT whatever its kind, `county:<name>`), and the resource is the running job's
 * workflow id: Temporal refuses a second start under an id while a run holds it (its id conflict
 * policy), whatever the kind, so no table of ours keeps a lock. The job id a user sees stays
 * `<kind>:<lock id>:<ulid>` (the run's memo `jobId`), one per run. A singleton (the overview
 * build, a CF account's order queue, one mail's delivery) is its own lock: its fixed id
 * `<kind>:<scope>` is refused by Temporal while one runs. A queue kind names the signal its
 * starts deliver (signal-with-start: the running queue gets it, or one starts with it), and a
 * singleton the other signals it takes while it runs (`signals`, sent by `signalJob`). A
 * periodic job's record names only its workflow and queue: its schedule (temporal/schedules.ts)
 * names the id's scope, and Temporal starts it.
 */
import { TaskQueue, type TaskQueueName } from './queues';

export interface JobLock {
  /** What is locked: `uat`, `county`, `export-bundle`… Kinds naming the same resource exclude each other. */
  resource: string;
  /** Which one (a SIRUTA code, a county); the job id's scope. */
  id(input: never): string;
}

/** The workflow id a running holder of the lock has: `<resource>:<id>`, the one Temporal keeps unique. */
export function lockWorkflowId(lock: { resource: string; id: string }): string {
  return `${lock.resource}:${lock.id}`;
}

/**
 * The workflow id a job runs under: its lock's for a kind that locks a resource (the job id's
 * scope is the lock's id), else the job id itself.
 */
export function workflowIdOfJob(jobId: string): string {
  const [kind, scope] = jobId.split(':');
  const lock = (JOBS as Record<string, JobSpec>)[kind]?.lock;
  return lock && scope ? lockWorkflowId({ resource: lock.resource, id: scope }) : jobId;
}

/** The job id of a run: the one its starter gave (memo `jobId`) under a lock's workflow id, else the workflow id. */
export function jobIdOfRun(run: { workflowId: string; memo?: Record<string, unknown> }): string {
  const id = run.memo?.jobId;
  return typeof id === 'string' && id !== '' ? id : run.workflowId;
}

export interface JobSpec<W extends string = string> {
  /** The workflow type (workflows/index.ts; temporal/jobs.ts checks the name against it). */
  workflow: W;
  queue: TaskQueueName;
  /**
   * The job id's scope `<kind>:<scope>:<ulid>` (a singleton's `<kind>:<scope>`) when no lock
   * names it (a lock's id is the scope): fixed, or from the input (a mail's outbox row, a UAT).
   * Neither a lock nor a scope: a periodic job, started only by its schedule.
   */
  scope?: string | ((input: never) => string);
  /** The resource one at a time is about; none: starts never conflict (or the kind is a singleton). */
  lock?: JobLock;
  /** A singleton's fixed id `<kind>:<scope>` is its own lock: Temporal refuses a second start. */
  singleton?: true;
  /** A queue: the signal every start delivers, starting the singleton with it when none runs. */
  signal?: string;
  /**
   * Signals the running singleton takes besides its start's, by name: temporal/jobs.ts
   * `signalJob` sends them and the workflow defines its handlers from the same record.
   */
  signals?: Readonly<Record<string, string>>;
  /** The Siruta search attribute (the UAT the job is about). */
  siruta?(input: never): number;
}

const uat = (i: { siruta: number }) => String(i.siruta);
const sirutaOf = (i: { siruta: number }) => i.siruta;
/** A county is locked by its catalogue name, the same whether a user or the all-counties job starts it. */
const county = (i: { county: string }) => i.county.replace(/:/g, '-');

/** Every sync of one UAT, whatever its kind, holds `uat:<siruta>`. */
const UAT_SYNC = { resource: 'uat', id: uat } as const;

export const JOBS = {
  sync: { workflow: 'uatSync', queue: TaskQueue.store, lock: UAT_SYNC, siruta: sirutaOf },
  'sync-background': { workflow: 'uatSync', queue: TaskQueue.store, lock: UAT_SYNC, siruta: sirutaOf },
  'sync-county': { workflow: 'countySync', queue: TaskQueue.store, lock: { resource: 'county', id: county } },
  'sync-all-counties': { workflow: 'allCountiesSync', queue: TaskQueue.store, scope: 'ro', singleton: true },
  'refresh-all': { workflow: 'refreshAll', queue: TaskQueue.store, lock: { resource: 'refresh-all', id: () => 'global' } },
  'auto-refresh': { workflow: 'autoRefresh', queue: TaskQueue.store, lock: { resource: 'auto-refresh', id: () => 'global' } },
  // An export of one kind per UAT at a time (its own resource: an export reads the store, it syncs nothing the UAT lock guards).
  'export-bundle': { workflow: 'exportBundle', queue: TaskQueue.store, lock: { resource: 'export-bundle', id: uat }, siruta: sirutaOf },
  'export-layer-gpkg': { workflow: 'exportLayerGpkg', queue: TaskQueue.store, lock: { resource: 'export-layer-gpkg', id: uat }, siruta: sirutaOf },
  'registry-status-check': { workflow: 'registryStatusCheck', queue: TaskQueue.store, scope: 'manual', singleton: true },
  'uat-catalog-refresh': { workflow: 'uatCatalogRefresh', queue: TaskQueue.store, scope: 'global', singleton: true },
  // The steps of a sync or an export, started only as children of the job that holds the UAT.
  'layer-sync': { workflow: 'layerSync', queue: TaskQueue.store, scope: (i: { siruta: number; layerId: string }) => `${i.siruta}-${i.layerId}`, siruta: sirutaOf },
  'import-nogeom': { workflow: 'importNoGeometry', queue: TaskQueue.store, scope: uat, siruta: sirutaOf },
  enrich: { workflow: 'enrichParcels', queue: TaskQueue.store, scope: uat, siruta: sirutaOf },
  'weekend-sync': { workflow: 'weekendSync', queue: TaskQueue.store, scope: 'global', singleton: true, signal: 'weekendTrigger', signals: { wake: 'weekendWake' } },
  // One delivery per outbox row: a second start while it runs is the same delivery.
  'deliver-mail': { workflow: 'deliverMail', queue: TaskQueue.store, scope: (outboxId: string) => outboxId, singleton: true },
  // The overview rebuild (spec 3.6) and our build of the archive, on the queue of the heavy tools.
  'tile-archive-rebuild': { workflow: 'tileArchiveRebuild', queue: TaskQueue.store, scope: 'overview', singleton: true },
  'tile-archive-build': { workflow: 'overviewArchiveBuild', queue: TaskQueue.exports, scope: 'overview', singleton: true },
  // A certificate-portal account's FIFO queue of orders, and each order's batch (its child, one at a time).
  'cf-order-queue': { workflow: 'cfOrderQueue', queue: TaskQueue.store, scope: (i: { account: string }) => i.account, singleton: true, signal: 'enqueueBatch' },
  'cf-order-batch': { workflow: 'cfOrderBatch', queue: TaskQueue.store, scope: (i: { account: string; orderId: string }) => `${i.account}:${i.orderId}`, singleton: true },
  // One backup at a time (pgBackRest holds the repository too): by hand or by the nightly kick.
  backup: { workflow: 'databaseBackup', queue: TaskQueue.store, scope: 'repository', singleton: true },
  // Periodic jobs that only their schedules start (temporal/schedules.ts names each id's scope).
  'session-housekeeping': { workflow: 'sessionHousekeeping', queue: TaskQueue.store },
  'portal-health': { workflow: 'portalHealth', queue: TaskQueue.store },
  'mail-outbox-sweep': { workflow: 'mailOutboxSweep', queue: TaskQueue.store },
  'daily-digest': { workflow: 'dailyDigest', queue: TaskQueue.store },
  'sync-rule-scheduler': { workflow: 'syncRuleScheduler', queue: TaskQueue.store },
  'weekend-sync-kick': { workflow: 'weekendSyncKick', queue: TaskQueue.store },
  'backup-nightly': { workflow: 'backupKick', queue: TaskQueue.store },
  'backup-watch': { workflow: 'backupWatch', queue: TaskQueue.store },
} as const satisfies Record<string, JobSpec>;

export type JobKind = keyof typeof JOBS;

/** The kinds a start can name (a lock or a scope gives the id); a periodic job's schedule starts it. */
export type StartableKind = { [K in JobKind]: (typeof JOBS)[K] extends { lock: JobLock } | { scope: unknown } ? K : never }[JobKind];

/** The resource a start of `kind` with `input` holds, or null when the kind takes no lock. */
export function lockOf(kind: JobKind, input: unknown): { resource: string; id: string } | null {
  const spec: JobSpec = JOBS[kind];
  return spec.lock ? { resource: spec.lock.resource, id: spec.lock.id(input as never) } : null;
}

/** The id scope of a start: the lock's id, else the record's fixed scope. */
export function scopeOf(kind: JobKind, input: unknown): string {
  const spec: JobSpec = JOBS[kind];
  const scope = spec.lock ? spec.lock.id(input as never) : typeof spec.scope === 'function' ? spec.scope(input as never) : spec.scope;
  if (scope === undefined) throw new Error(`Job kind "${kind}" has neither a lock nor a scope`);
  return scope;
}

export function sirutaOfJob(kind: JobKind, input: unknown): number | undefined {
  const spec: JobSpec = JOBS[kind];
  return spec.siruta?.(input as never);
}
