/**
 * Activities of backups (the backup area's service), on the `store` queue of a worker that runs
 * beside the database server: pgBackRest reads the cluster's data directory.
 */
import { Context } from '@temporalio/activity';
import type { BackupType, BackupRun } from '../domain/backup/jobTypes';
import type { BackupService, LastBackup } from '../domain/backup/service';
import { withTemporalFailures } from './failures';
import { keptAlive } from './heartbeat';

export function createBackupActivities({ services: { backup } }: { services: { backup: BackupService } }) {
  return keptAlive({
    /**
     * A backup of the store and the buckets, then the retention. The run id is the job's run, per
     * attempt: the singleton's workflow id is the same every night, its run id is not.
     */
    async runBackup(input: { type?: BackupType }): Promise<BackupRun> {
      const { workflowExecution, attempt } = Context.current().info;
      const id = `${workflowExecution?.workflowId ?? 'backup'}-${workflowExecution?.runId ?? Date.now()}-${attempt}`.replace(/[^A-Za-z0-9._-]/g, '_');
      return withTemporalFailures(() => backup.runBackup({ id, type: input.type }));
    },

    async notifyBackupFailed(input: { jobId: string; error: string }): Promise<number> {
      return backup.notifyFailed(input.jobId, input.error);
    },

    async checkBackupAge(): Promise<LastBackup & { notified: number }> {
      return backup.checkAge();
    },
  });
}

export type BackupActivities = ReturnType<typeof createBackupActivities>;
