/** Server side of the backups card of the infrastructure page: the calls GET and POST /api/admin/backups make (the list through `context.services.backup`). */
export type { BackupList } from '../../../domain/backup/service';
export { startBackup } from '../../../temporal/backups';
