/**
 * Activities of backups (domain/backup/service.ts), on the `store` queue of a worker that runs
 * beside the database server: pgBackRest reads the cluster's data directory.
 */
import { Context } from '@temporalio/activity';
import type { Db } from '../domain/db/pool';
import { pgDataDir, stackTarget, type BackupType } from '../domain/backup/pgbackrest';
import { checkBackupAge, notifyBackupProblem, runBackup, type BackupRun, type LastBackup } from '../domain/backup/service';
import type { StartDelivery } from '../domain/areaDeps';
import { withTemporalFailures } from './failures';
import { keepAlive } from './heartbeat';

export function createBackupActivities({ db, deliverMail }: { db: Db; deliverMail: StartDelivery }) {
  const target = () => stackTarget(pgDataDir());
  return {
    /**
     * A backup of the store and the buckets, then the retention. The run id is the job's run, per
     * attempt: the singleton's workflow id is the same every night, its run id is not.
     */
    async runBackup(input: { type?: BackupType }): Promise<BackupRun> {
      const { workflowExecution, attempt } = Context.current().info;
      const id = `${workflowExecution?.workflowId ?? 'backup'}-${workflowExecution?.runId ?? Date.now()}-${attempt}`.replace(/[^A-Za-z0-9._-]/g, '_');
      return withTemporalFailures(() => keepAlive(async () => (await runBackup(target(), { id, type: input.type })).run));
    },

    async notifyBackupFailed(input: { jobId: string; error: string }): Promise<number> {
      return notifyBackupProblem(db, deliverMail, {
        problem: 'failed', key: input.jobId, detail: `Copia de siguranță ${input.jobId} a eșuat: ${input.error}`,
      });
    },

    async checkBackupAge(): Promise<LastBackup & { notified: number }> {
      return checkBackupAge(db, deliverMail, target());
    },
  };
}

export type BackupActivities = ReturnType<typeof createBackupActivities>;
