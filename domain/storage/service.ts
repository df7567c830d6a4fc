/**
 * The storage area's door (docs/architecture.md "Areas"): the object store's client and buckets,
 * and the temporary directories of builds and uploads. Stateless functions rather than a service
 * object: the areas that keep objects (exports, tiles, the registry's attachments, CF documents,
 * backups) call them from deep inside their own code, and the S3 client is one per process.
 */
export { bucketNames, checkBuckets, ensureBuckets, ensureExportLifecycle, s3 } from './s3';
export { makeTempDir, sweepStaleTempDirs } from './tempDirs';
