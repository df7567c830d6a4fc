/**
 * Starting a backup by hand (`POST /api/admin/backups`): the singleton job `backup:repository`,
 * refused with 409 `already_running` while one runs (the nightly one included, which the
 * schedule's kick starts under the same id).
 */
import { progressUrl, start } from './jobs';

export async function startBackup(): Promise<{ jobId: string; progressUrl: string }> {
  const { jobId } = await start('backup', {});
  return { jobId, progressUrl: progressUrl(jobId) };
}
