/** S3 client for the object store (MinIO locally, any S3 in deployment). */
import {
  S3Client,
  HeadBucketCommand,
  CreateBucketCommand,
  GetBucketLifecycleConfigurationCommand,
  PutBucketLifecycleConfigurationCommand,
  type LifecycleRule,
} from '@aws-sdk/client-s3';
import { config } from '../config';

let client: S3Client | undefined;

export function s3(): S3Client {
  client ??= new S3Client({
    endpoint: config.s3.endpoint,
    region: config.s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.s3.accessKeyId, secretAccessKey: config.s3.secretAccessKey },
  });
  return client;
}

export const bucketNames = (): string[] => Object.values(config.s3.buckets);

/** Creates the service's buckets when missing; safe to run at every start. */
export async function ensureBuckets(): Promise<string[]> {
  const created: string[] = [];
  for (const Bucket of bucketNames()) {
    try {
      await s3().send(new HeadBucketCommand({ Bucket }));
    } catch {
      await s3().send(new CreateBucketCommand({ Bucket }));
      created.push(Bucket);
    }
  }
  await ensureExportLifecycle();
  return created;
}

export const EXPORT_EXPIRY_RULE_ID = 'expire-old-exports';

/**
 * Export archives are downloads, not records: the exports bucket expires them after
 * config.exports.retentionDays (the store's own lifecycle, so no process has to be running for
 * it). Written only when the rule differs, so every start may call it.
 */
export async function ensureExportLifecycle(Bucket: string = config.s3.buckets.exports): Promise<LifecycleRule> {
  const wanted: LifecycleRule = {
    ID: EXPORT_EXPIRY_RULE_ID,
    Status: 'Enabled',
    Filter: { Prefix: '' },
    Expiration: { Days: config.exports.retentionDays },
  };
  const current = await s3()
    .send(new GetBucketLifecycleConfigurationCommand({ Bucket }))
    .then((r) => r.Rules ?? [])
    .catch(() => [] as LifecycleRule[]);
  const mine = current.find((r) => r.ID === EXPORT_EXPIRY_RULE_ID);
  if (mine?.Status === 'Enabled' && mine.Expiration?.Days === wanted.Expiration!.Days) return mine;
  const others = current.filter((r) => r.ID !== EXPORT_EXPIRY_RULE_ID);
  await s3().send(new PutBucketLifecycleConfigurationCommand({ Bucket, LifecycleConfiguration: { Rules: [...others, wanted] } }));
  return wanted;
}

export async function checkBuckets(): Promise<string> {
  for (const Bucket of bucketNames()) await s3().send(new HeadBucketCommand({ Bucket }));
  // Shown on the home page's health line: Romanian words, not the storage's term.
  return `${bucketNames().length} spații de stocare`;
}
