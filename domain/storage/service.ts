/**
 * The storage area's door (docs/architecture.md "Areas"): the object store's client and buckets,
 * and the temporary directories of builds and uploads. Stateless functions rather than a service
 * object: the areas that keep objects (exports, tiles, the registry's attachments, CF documents,
 * backups) call them from deep inside their own code, and the S3 client is one per process.
 */
import { ensureExportLifecycle } from './s3';
import { keepSweepingTempDirs, sweepStaleTempDirs } from './tempDirs';

export { bucketNames, checkBuckets, ensureBuckets, ensureExportLifecycle, s3 } from './s3';
export { keepSweepingTempDirs, makeTempDir, sweepStaleTempDirs } from './tempDirs';

/** What a process's start-up asks of the storage: its housekeeping (api/server.ts, workers/main.ts). */
export function createStorageService() {
  return {
    /** Upload and export directories a killed predecessor left behind; a sibling process's live ones are spared by age. */
    sweepStaleTempDirs: () => sweepStaleTempDirs(),
    /** The same sweep now and then every hour, for as long as the process lives. */
    keepSweepingTempDirs: (onRemoved: (removed: string[]) => void) => keepSweepingTempDirs(onRemoved),
    /** The export bucket's expiry rule, set once per start. */
    ensureExportLifecycle: () => ensureExportLifecycle(),
  };
}

export type StorageService = ReturnType<typeof createStorageService>;
