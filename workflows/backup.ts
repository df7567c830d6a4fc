/**
 * Backups (docs/operations.md "Backups"):
 *  - `databaseBackup` (job `backup`, singleton `backup:repository`): one backup of the store and
 *    the buckets, started by `POST /api/admin/backups` or by the nightly kick; a failure tells the
 *    administrators and fails the job;
 *  - `backupKick`: the nightly schedule's run, starting the singleton (a backup already running,
 *    started by hand, is the night's backup);
 *  - `backupWatch`: hourly, tells the administrators when the newest good backup is late.
 */
import { ApplicationFailure, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BackupActivities } from '../activities/backup';
import type { BackupRun, DatabaseBackupInput } from '../domain/backup/jobTypes';
import { failureMessage } from '../temporal/common/failures';
import { progressQuery, type ProgressState } from '../temporal/common/progress';
import { TaskQueue } from '../temporal/common/queues';
import { RETRY } from '../temporal/common/retryPolicies';
import { KEPT_ALIVE } from '../temporal/common/heartbeat';
import { startChildJob } from './childJobs';

const backup = proxyActivities<BackupActivities>({
  taskQueue: TaskQueue.store,
  // A full backup of a large store takes hours; the heartbeat notices a dead worker within minutes.
  startToCloseTimeout: '8 hours',
  heartbeatTimeout: '2 minutes',
  retry: RETRY.build,
});
const short = proxyActivities<BackupActivities>({ taskQueue: TaskQueue.store, startToCloseTimeout: '2 minutes', ...KEPT_ALIVE, retry: RETRY.periodic });

export async function databaseBackup(input: DatabaseBackupInput = {}): Promise<BackupRun> {
  const progress: ProgressState = { status: 'running', phase: 'backup', current: 0, total: 1, message: 'Copie de siguranță în curs' };
  setHandler(progressQuery, () => progress);
  // Versioned: a backup started before this change replays without closing its records.
  const closesRecords = patched('backup-close-interrupted');
  try {
    const run = await backup.runBackup({ type: input.type });
    // An earlier attempt that died mid-run is still recorded as running (best effort: the backup
    // itself is done whatever the record store says).
    if (closesRecords) await short.closeInterruptedBackups().catch(() => 0);
    Object.assign(progress, { status: 'done', phase: 'done', current: 1, message: 'Copie de siguranță încheiată' });
    return run;
  } catch (err) {
    const error = failureMessage(err);
    Object.assign(progress, { status: 'failed', phase: 'failed', message: 'Copia de siguranță a eșuat', error });
    if (closesRecords) await short.closeInterruptedBackups().catch(() => 0);
    await short.notifyBackupFailed({ jobId: workflowInfo().workflowId, error });
    throw ApplicationFailure.nonRetryable(error, 'BackupFailedError');
  }
}

export async function backupKick(): Promise<'started' | 'already_running'> {
  return (await startChildJob<typeof databaseBackup>('backup', {})) ? 'started' : 'already_running';
}

export async function backupWatch(): Promise<{ ok: boolean; notified: number }> {
  const { ok, notified } = await short.checkBackupAge();
  return { ok, notified };
}
