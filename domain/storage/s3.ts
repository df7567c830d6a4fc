/** S3 client for the object store (MinIO locally, any S3 in deployment). */
import { S3Client, HeadBucketCommand, CreateBucketCommand } from '@aws-sdk/client-s3';
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
  return created;
}

export async function checkBuckets(): Promise<string> {
  for (const Bucket of bucketNames()) await s3().send(new HeadBucketCommand({ Bucket }));
  return `${bucketNames().length} buckets`;
}
