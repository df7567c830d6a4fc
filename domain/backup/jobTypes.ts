/** What the backup jobs (workflows/backup.ts) take and answer. */

export type BackupType = 'full' | 'diff' | 'incr';

/** What the backup job takes. */
export interface DatabaseBackupInput {
  type?: BackupType;
}

/** One backup run, as recorded in the backup bucket. */
export interface BackupRun {
  id: string;
  type: BackupType;
  startedAt: string;
  endedAt: string | null;
  /** Database backup (compressed) plus the object versions copied by this run. */
  sizeBytes: number | null;
  status: 'running' | 'done' | 'failed';
  error?: string;
  /** pgBackRest's label of the database backup. */
  label?: string;
}
