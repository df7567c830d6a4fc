/**
 * Backups for administrators (CONTRACT.md section 6, docs/operations.md "Backups"): the list of
 * backup runs with the newest point the WAL archive reaches, and a backup started now.
 */
import type { Router } from 'express';
import { z } from 'zod';
import type { BackupService } from '../../domain/backup/service';
import { startBackup } from '../../temporal/backups';
import { defineRoute, reply } from '../http/route';

const BackupItem = z.object({
  id: z.string(),
  type: z.enum(['full', 'diff', 'incr']),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  sizeBytes: z.number().int().nullable(),
  status: z.enum(['running', 'done', 'failed']),
  error: z.string().optional(),
});

const BackupList = z.object({
  items: z.array(BackupItem),
  /** Time of the newest archived WAL segment: a restore reaches up to it (null: nothing archived). */
  walArchivedUpTo: z.string().nullable(),
});

export function registerAdminBackupRoutes(router: Router, backup: BackupService): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/admin/backups',
      summary: 'Backups of the store and the object store, newest first, and how far the WAL archive reaches; administrators only',
      tags: ['admin'],
      auth: 'admin',
      response: { description: 'Backup runs', schema: BackupList },
    },
    () => backup.list(),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/admin/backups',
      summary: 'Start a backup now (a Temporal job); administrators only',
      tags: ['admin'],
      auth: 'admin',
      response: { status: 202, description: 'Backup job started', schema: z.object({ jobId: z.string(), progressUrl: z.string() }) },
      failures: { 409: 'already_running: a backup runs; body has jobId' },
    },
    async () => reply(202, await startBackup()),
  );
}
