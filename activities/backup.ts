/**
 * Activities of backups (the backup area's service), on the `store` queue of a worker that runs
 * beside the database server: pgBackRest reads the cluster's data directory.
 */
import { Context } from '@temporalio/activity';
import type { BackupType, BackupRun } from '../domain/backup/jobTypes';
import type { BackupService, LastBackup } from '../domain/backup/service';
import { withTemporalFailures } from './failures';
import { keptAlive } from './heartbeat';

/** The run records' id of this job's run, before the attempt number (the same in every activity of the run). */
function jobRunPrefix(): string {
  const { workflowExecution } = Context.current().info;
  return `${workflowExecution?.workflowId ?? 'backup'}-${workflowExecution?.runId ?? Date.now()}-`.replace(/[^A-Za-z0-9._-]/g, '_');
}

export function createBackupActivities({ services: { backup } }: { services: { backup: BackupService } }) {
  return keptAlive({
    /**
     * A backup of the store and the buckets, then the retention. The run id is the job's run, per
     * attempt: the singleton's workflow id is the same every night, its run id is not.
     */
    async runBackup(input: { type?: BackupType }): Promise<BackupRun> {
      const id = `${jobRunPrefix()}${Context.current().info.attempt}`;
      return withTemporalFailures(() => backup.runBackup({ id, type: input.type }));
    },

    /** This job's attempts whose process died mid-run, closed as failed in the run records. */
    async closeInterruptedBackups(): Promise<number> {
      return backup.closeInterrupted(jobRunPrefix());
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
