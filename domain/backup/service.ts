/**
 * The backups' door (docs/architecture.md "Areas"): the list an administrator sees, a backup run,
 * the late-backup check and the failure notice, on the stack's cluster and repository. Built once
 * per process by `domain/services.ts` `createServices` and handed to the backup routes, the
 * infrastructure page and the backup activities. The launcher, the restore script and the worker's
 * start run before or without a store, so they call the stateless functions below with their
 * target explicitly. The jobs' types are in `jobTypes.ts`.
 */
import type { AreaDeps } from '../areaDeps';
import type { NotificationsService } from '../notifications/service';
import type { BackupType } from './jobTypes';
import { pgDataDir, stackTarget } from './pgbackrest';
import { backupList, checkBackupAge, closeInterruptedRuns, notifyBackupProblem, runBackup, stackRepo } from './runs';

export type { BackupList, LastBackup } from './runs';
/** How the stack's PostgreSQL archives into the repository (the launcher, scripts/stack/services.ts). */
export { archiveSettings, asPostgres, pgbackrestEnv, pgDataDir, stackTarget } from './pgbackrest';
/** Before or without the store: the launcher and the worker's start, the metrics' gauges, `npm run restore`. */
export { ensureBackupRepository, lastBackup, restore } from './runs';

export interface BackupDeps extends Pick<AreaDeps, 'store'> {
  /** A failed or late backup is told to every administrator. */
  notifications: Pick<NotificationsService, 'notify'>;
}

export function createBackupService({ store, notifications }: BackupDeps) {
  const db = store.pool;
  // Read at each call: the worker beside the database server finds its data directory then.
  const target = () => stackTarget(pgDataDir());
  return {
    /** The backups an administrator sees (GET /api/admin/backups, the infrastructure page). */
    list: () => backupList(stackRepo()),
    /** One backup of the store and the buckets, then the retention; `id` names the run. */
    runBackup: async (o: { id: string; type?: BackupType }) => (await runBackup(target(), o)).run,
    /** A job's attempts that died mid-run, closed as failed (closeInterruptedRuns). */
    closeInterrupted: (idPrefix: string) => closeInterruptedRuns(stackRepo(), idPrefix),
    /** Tells the administrators that a backup job failed (once per job). */
    notifyFailed: (jobId: string, error: string) =>
      notifyBackupProblem(db, notifications, { problem: 'failed', key: jobId, detail: `Copia de siguranță ${jobId} a eșuat: ${error}` }),
    /** The hourly check: a late backup is told to the administrators once. */
    checkAge: (now?: Date) => checkBackupAge(db, notifications, target(), now),
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
