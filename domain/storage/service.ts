/**
 * The storage area's door (docs/architecture.md "Areas"): the object store's client and buckets,
 * and the temporary directories of builds and uploads. Stateless functions rather than a service
 * object: the areas that keep objects (exports, tiles, the registry's attachments, CF documents,
 * backups) call them from deep inside their own code, and the S3 client is one per process.
 */
import { ensureExportLifecycle } from './s3';
import { keepSweepingTempDirs } from './tempDirs';

export { bucketNames, checkBuckets, ensureBuckets, ensureExportLifecycle, s3 } from './s3';
export { makeTempDir, sweepStaleTempDirs } from './tempDirs';

/** What a process's start-up asks of the storage: its housekeeping (api/server.ts, workers/main.ts). */
export function createStorageService() {
  return {
    /**
     * Upload and export directories a killed process left behind, swept now and every hour for as
     * long as this one lives; a sibling process's live ones are spared by age.
     */
    keepSweepingTempDirs: (onRemoved: (removed: string[]) => void) => keepSweepingTempDirs(onRemoved),
    /** The export bucket's expiry rule, set once per start. */
    ensureExportLifecycle: () => ensureExportLifecycle(),
  };
}

export type StorageService = ReturnType<typeof createStorageService>;
