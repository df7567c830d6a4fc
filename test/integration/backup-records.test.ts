/**
 * A backup attempt whose process died mid-run (SIGKILL, out of memory: its own catch never ran)
 * is still recorded as running; the job closes it as failed when it ends
 * (domain/backup/runs.ts `closeInterruptedRuns`, called by workflows/backup.ts), so the newest
 * record no longer says "în curs" until the next night and the start button is free. Against the
 * real object store, on a stanza of this test's own.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { backupRuns, closeInterruptedRuns } from '../../domain/backup/runs';
import { ensureBackupBucket, deleteKeys, listAll } from '../../domain/backup/objects';
import type { BackupRun } from '../../domain/backup/jobTypes';
import { config } from '../../domain/config';
import { s3 } from '../../domain/storage/s3';

const repo = { stanza: `records-${Date.now().toString(36)}`, repoPath: '/pgbackrest' };
const put = (run: BackupRun) =>
  s3().send(new PutObjectCommand({ Bucket: config.backup.bucket, Key: `runs/${repo.stanza}/${run.id}.json`, Body: JSON.stringify(run), ContentType: 'application/json' }));
const record = (id: string, status: BackupRun['status']): BackupRun => ({ id, type: 'full', startedAt: new Date().toISOString(), endedAt: status === 'running' ? null : new Date().toISOString(), sizeBytes: null, status });

beforeAll(async () => {
  await ensureBackupBucket();
});
afterAll(async () => {
  await deleteKeys(config.backup.bucket, (await listAll(config.backup.bucket, `runs/${repo.stanza}/`)).map((o) => o.Key!));
});

test("a job's attempts left running by a dead process are closed as failed; its finished attempt and other jobs' runs stay as they are", async () => {
  await put(record('backup_repository-run1-1', 'running'));
  await put(record('backup_repository-run1-2', 'done'));
  await put(record('backup_repository-run2-1', 'running'));
  expect(await closeInterruptedRuns(repo, 'backup_repository-run1-')).toBe(1);
  const byId = Object.fromEntries((await backupRuns(repo)).map((r) => [r.id, r]));
  expect(byId['backup_repository-run1-1']).toMatchObject({ status: 'failed', endedAt: expect.any(String), error: expect.stringContaining('Întreruptă') });
  expect(byId['backup_repository-run1-2'].status).toBe('done');
  // Another job's attempt (still running, as far as this job knows) is not touched.
  expect(byId['backup_repository-run2-1'].status).toBe('running');
  // Closing again finds nothing left.
  expect(await closeInterruptedRuns(repo, 'backup_repository-run1-')).toBe(0);
});
