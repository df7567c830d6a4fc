/**
 * The object-store half of backups: the product's buckets (attachments, CF extracts, exports, tile
 * archives) mirrored into the backup bucket at each backup. An object is copied once per version
 * (`<prefix>/blobs/<bucket>/<etag>/<key>`, a server-side copy) and each backup writes a manifest
 * of what every bucket held (`<prefix>/manifests/<label>.json`), so an overwritten or deleted
 * object stays restorable as long as a kept manifest names it. Restoring to a time keeps every
 * live object written before it, puts back what was overwritten or deleted since (from the
 * newest manifest before that time) and removes what was written after it.
 */
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type _Object,
} from '@aws-sdk/client-s3';
import { config } from '../config';
import { s3 } from '../storage/service';

export interface ManifestObject {
  key: string;
  etag: string;
  size: number;
  blob: string;
}

export interface ObjectManifest {
  label: string;
  takenAt: string;
  buckets: Record<string, ManifestObject[]>;
}

export interface MirrorResult {
  objects: number;
  copied: number;
  copiedBytes: number;
}

const backupBucket = () => config.backup.bucket;

export async function ensureBackupBucket(): Promise<void> {
  try {
    await s3().send(new HeadBucketCommand({ Bucket: backupBucket() }));
  } catch {
    await s3().send(new CreateBucketCommand({ Bucket: backupBucket() }));
  }
}

export async function listAll(Bucket: string, Prefix?: string): Promise<_Object[]> {
  const out: _Object[] = [];
  for await (const page of paginateListObjectsV2({ client: s3() }, { Bucket, Prefix })) out.push(...(page.Contents ?? []));
  return out;
}

const etagOf = (o: _Object) => (o.ETag ?? '').replace(/"/g, '');
const blobKey = (prefix: string, bucket: string, etag: string, key: string) => `${prefix}/blobs/${bucket}/${etag}/${key}`;
const copySource = (bucket: string, key: string) => `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

/** Copies every new object version of `buckets` into the backup bucket and writes the manifest `label`. */
export async function mirrorBuckets(prefix: string, label: string, buckets: readonly string[]): Promise<MirrorResult & { manifest: ObjectManifest }> {
  const have = new Set((await listAll(backupBucket(), `${prefix}/blobs/`)).map((o) => o.Key));
  const manifest: ObjectManifest = { label, takenAt: new Date().toISOString(), buckets: {} };
  const result: MirrorResult = { objects: 0, copied: 0, copiedBytes: 0 };
  for (const bucket of buckets) {
    const entries: ManifestObject[] = [];
    for (const o of await listAll(bucket)) {
      const entry = { key: o.Key!, etag: etagOf(o), size: o.Size ?? 0, blob: blobKey(prefix, bucket, etagOf(o), o.Key!) };
      if (!have.has(entry.blob)) {
        await s3().send(new CopyObjectCommand({ Bucket: backupBucket(), Key: entry.blob, CopySource: copySource(bucket, entry.key) }));
        result.copied += 1;
        result.copiedBytes += entry.size;
      }
      entries.push(entry);
    }
    manifest.buckets[bucket] = entries;
    result.objects += entries.length;
  }
  await s3().send(new PutObjectCommand({
    Bucket: backupBucket(), Key: `${prefix}/manifests/${label}.json`, Body: JSON.stringify(manifest), ContentType: 'application/json',
  }));
  return { ...result, manifest };
}

export async function readManifests(prefix: string): Promise<ObjectManifest[]> {
  const keys = (await listAll(backupBucket(), `${prefix}/manifests/`)).map((o) => o.Key!);
  const manifests = await Promise.all(keys.map(async (Key) => {
    const r = await s3().send(new GetObjectCommand({ Bucket: backupBucket(), Key }));
    return JSON.parse(await r.Body!.transformToString()) as ObjectManifest;
  }));
  return manifests.sort((a, b) => a.takenAt.localeCompare(b.takenAt));
}

export async function deleteKeys(Bucket: string, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    await s3().send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
  }
}

/** Drops the manifests of expired backups and every copied version no kept manifest names. */
export async function pruneObjects(prefix: string, keptLabels: ReadonlySet<string>): Promise<{ manifests: number; blobs: number }> {
  const manifests = await readManifests(prefix);
  const dropped = manifests.filter((m) => !keptLabels.has(m.label));
  const kept = manifests.filter((m) => keptLabels.has(m.label));
  const referenced = new Set(kept.flatMap((m) => Object.values(m.buckets).flat().map((o) => o.blob)));
  const orphans = (await listAll(backupBucket(), `${prefix}/blobs/`)).map((o) => o.Key!).filter((k) => !referenced.has(k));
  await deleteKeys(backupBucket(), [...dropped.map((m) => `${prefix}/manifests/${m.label}.json`), ...orphans]);
  return { manifests: dropped.length, blobs: orphans.length };
}

export interface ObjectRestoreResult {
  manifest: string | null;
  restored: number;
  removed: number;
}

/**
 * Brings `buckets` back to their state at `to` (default: now, putting back only what was lost). Live objects last written at or before `to` stay; those written after it are
 * replaced by the manifest's version or removed; objects the manifest holds and the bucket lost
 * are copied back.
 */
export async function restoreBuckets(prefix: string, buckets: readonly string[], to?: Date): Promise<ObjectRestoreResult> {
  const manifests = await readManifests(prefix);
  // No time: the newest state, so every live object stays and only what was lost comes back.
  const at = to ?? new Date();
  const manifest = manifests.filter((m) => Date.parse(m.takenAt) <= at.getTime()).at(-1) ?? null;
  const result: ObjectRestoreResult = { manifest: manifest?.label ?? null, restored: 0, removed: 0 };
  for (const bucket of buckets) {
    const wanted = new Map((manifest?.buckets[bucket] ?? []).map((o) => [o.key, o]));
    const live = await listAll(bucket);
    const stay = new Set<string>();
    const remove: string[] = [];
    for (const o of live) {
      const w = wanted.get(o.Key!);
      if ((o.LastModified && o.LastModified.getTime() <= at.getTime()) || w?.etag === etagOf(o)) stay.add(o.Key!);
      else if (!w) remove.push(o.Key!);
    }
    for (const [key, o] of wanted) {
      if (stay.has(key)) continue;
      await s3().send(new CopyObjectCommand({ Bucket: bucket, Key: key, CopySource: copySource(backupBucket(), o.blob) }));
      result.restored += 1;
    }
    await deleteKeys(bucket, remove);
    result.removed += remove.length;
  }
  return result;
}
