/**
 * Which task queue runs which workflows and activities, and with what limits. Later issues add
 * their workflows to workflows/index.ts and their activities here; workers/main.ts starts one
 * Worker per queue that has anything registered.
 */
import path from 'node:path';
import type { WorkerOptions } from '@temporalio/worker';
import { createStoreActivities } from '../activities/store';
import { createBackupActivities } from '../activities/backup';
import { createExportActivities } from '../activities/exports';
import { createEnrichmentPortalActivities, createEnrichmentStoreActivities } from '../activities/enrichment';
import { createTileActivities, createTileBuildActivities } from '../activities/tiles';
import { createLandregPortalActivities, createLandregStoreActivities } from '../activities/landreg';
import { createNotificationActivities } from '../activities/notifications';
import { createRegistryActivities } from '../activities/registry';
import { createCfportalActivities } from '../activities/cfportal';
import type { CfAccountSource } from '../domain/cfportal/rules';
import { createSchedulingActivities } from '../activities/scheduling';
import { createJobActivities } from '../activities/jobs';
import { config, projectRoot } from '../domain/config';
import type pg from 'pg';
import type { PrismaClient } from '../domain/db/prisma';
import type { Store } from '../domain/db/store';
import type { SmtpTarget } from '../domain/mail/transport';
import { TaskQueue, type TaskQueueName } from '../temporal/common/queues';
import { mailDelivery } from '../temporal/mail';
import type { StartDelivery } from '../domain/areaDeps';
import type { Services } from '../domain/services';
import { processServices } from '../temporal/services';
import { jobsHolding, listRunningJobs, start } from '../temporal/jobs';

/** What the worker is built from; main.ts builds the store once per process, a test its own. */
export interface WorkerDeps {
  store: Store;
  /** Land-registry portal base URL; default config.landreg.baseUrl (tests aim at their own simulator). */
  landregBaseUrl?: string;
  /** SMTP server of the mail delivery; default config.mail (tests aim at a MailDev of their own). */
  smtp?: SmtpTarget;
  /** Status authority base URL; default config.statusAuthority.baseUrl. */
  statusAuthorityUrl?: string;
  /** Certificate portal base URL and where accounts are read from; default config.cfportal and the production slot. */
  cfportalBaseUrl?: string;
  cfportalAccounts?: CfAccountSource;
  /** The process's services when its entry point built them already (workers/main.ts); default: built here from the settings above. */
  services?: Services;
}

export type QueueWorkerOptions = Pick<
  WorkerOptions,
  | 'maxConcurrentActivityTaskExecutions'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxActivitiesPerSecond'
  | 'maxTaskQueueActivitiesPerSecond'
  | 'maxCachedWorkflows'
  | 'shutdownGraceTime'
>;

/** What the activity factories receive: the settings, the store's pool and Prisma client, and the mail delivery start on that store. */
export type ActivityDeps = Omit<WorkerDeps, 'store'> & {
  /** A pool, not a client: some activities hold a connection of their own (the build's lock). */
  db: pg.Pool;
  prisma: PrismaClient;
  deliverMail: StartDelivery;
  /** Every area's service, built once for the process (domain/services.ts). */
  services: Services;
};

export function activityDeps({ store, services: built, ...settings }: WorkerDeps): ActivityDeps {
  const services =
    built ??
    processServices(store, {
      outside: {
        statusAuthorityUrl: settings.statusAuthorityUrl,
        landregBaseUrl: settings.landregBaseUrl,
        smtp: settings.smtp,
        cfportalBaseUrl: settings.cfportalBaseUrl,
        cfportalAccounts: settings.cfportalAccounts,
      },
    });
  return { ...settings, db: store.pool, prisma: store.prisma, deliverMail: mailDelivery, services };
}

export interface QueueWorkerEntry {
  /** Module exporting the workflows this queue runs (bundled once per path per process). */
  workflowsPath?: string;
  activities?: (deps: ActivityDeps) => object;
  options?: QueueWorkerOptions;
}

/** All workflows live in one module: one bundle serves every queue that runs workflows. */
export const ALL_WORKFLOWS_PATH = path.join(projectRoot, 'workflows', 'index.ts');

export const workerRegistry: Record<TaskQueueName, QueueWorkerEntry> = {
  [TaskQueue.landreg]: {
    // Parcel sync (docs/sync.md), enrichment batches and the no-geometry import (docs/enrichment.md).
    activities: (deps) => ({ ...createLandregPortalActivities(deps.services), ...createEnrichmentPortalActivities(deps.services.enrichment) }),
    options: {
      // The portal is shared by every job: the per-second cap applies to the whole task queue
      // (all processes), so parallel syncs never flood it (ARCHITECTURE.md, Workflows).
      maxTaskQueueActivitiesPerSecond: config.workers.landregActivitiesPerSecond,
      maxConcurrentActivityTaskExecutions: config.workers.landregMaxConcurrentActivities,
    },
  },
  [TaskQueue.store]: {
    workflowsPath: ALL_WORKFLOWS_PATH,
    // Tile archive rebuild: a webhook call and S3 HEADs, light enough for the store queue.
    activities: (deps) => ({
      ...createStoreActivities(deps),
      ...createTileActivities(),
      ...createEnrichmentStoreActivities(deps.services.enrichment),
      // Sync bookkeeping (docs/sync.md); the portal calls of the sync live on the landreg queue only.
      ...createLandregStoreActivities(deps.services),
      // Registry status checks (docs/registry.md): a page fetch and a short transaction each.
      ...createRegistryActivities(deps.services),
      // Sync rules and the weekend queue (docs/scheduling.md).
      ...createSchedulingActivities({ ...deps, scheduling: deps.services.scheduling, jobs: { listRunningJobs, start: (kind, input) => start(kind, input, { portalStarts: deps.services.landreg.portalStarts }) }, notifications: deps.services.notifications }),
      // Backups (domain/backup): pgBackRest beside the database server, the buckets' mirror.
      ...createBackupActivities(deps),
      // Parent workflows asking who holds a child job's resource (workflows/childJobs.ts).
      ...createJobActivities({ locks: { jobsHolding } }),
    }),
    options: { maxConcurrentActivityTaskExecutions: 8 },
  },
  [TaskQueue.exports]: {
    // The overview archive build (workflows/overviewArchiveBuild.ts) runs here whole; UAT exports
    // (docs/exports.md) run their workflows on the store queue and their builds here.
    workflowsPath: ALL_WORKFLOWS_PATH,
    activities: (deps) => ({ ...createExportActivities(deps.services.exports), ...createTileBuildActivities(deps.services.tiles) }),
    // ogr2ogr and archive builds are CPU-bound; more than two at once only thrashes 2 cores.
    options: { maxConcurrentActivityTaskExecutions: 2 },
  },
  [TaskQueue.cfOrders]: {
    // The CF pipeline (docs/cf.md): the cfOrderQueue/cfOrderBatch workflows run on the store
    // queue, their portal steps here, one batch at a time per account (the queue workflow).
    activities: (deps) => createCfportalActivities(deps.services),
    // Batches of one account never overlap (the queue workflow); several accounts may run at once.
    options: { maxConcurrentActivityTaskExecutions: 4 },
  },
  [TaskQueue.notifications]: {
    // The notifications module (domain/notifications): in-app records, and e-mails per preference.
    activities: (deps) => createNotificationActivities(deps.services),
    options: { maxConcurrentActivityTaskExecutions: 4 },
  },
};

export function hasRegisteredWork(entry: QueueWorkerEntry): boolean {
  return entry.workflowsPath !== undefined || entry.activities !== undefined;
}
