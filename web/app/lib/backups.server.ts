/** Server side of the backups card of the infrastructure page: the services GET and POST /api/admin/backups call. */
export { backupList } from '../../../domain/backup/service';
export type { BackupList } from '../../../domain/backup/service';
export { startBackup } from '../../../temporal/backups';
