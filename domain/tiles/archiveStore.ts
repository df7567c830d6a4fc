/**
 * The PMTiles overview archive in object storage (config.s3.buckets.tiles, key
 * config.tiles.archiveKey): its metadata for the monitor and the rebuild workflow, and ranged
 * reads for `/tiles/overview.pmtiles` (PMTiles readers fetch the header, directories and tiles by
 * HTTP Range).
 */
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { config } from '../config';
import { s3 } from '../storage/service';

export interface ArchiveInfo {
  key: string;
  lastModified: string;
  sizeBytes: number;
  etag: string;
}

const location = () => ({ Bucket: config.s3.buckets.tiles, Key: config.tiles.archiveKey });

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/** Metadata of the archive, or null when it was never built. */
export async function archiveInfo(): Promise<ArchiveInfo | null> {
  try {
    const h = await s3().send(new HeadObjectCommand(location()));
    return {
      key: config.tiles.archiveKey,
      lastModified: (h.LastModified ?? new Date(0)).toISOString(),
      sizeBytes: h.ContentLength ?? 0,
      etag: h.ETag ?? '',
    };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

export async function uploadArchive(body: Readable, contentLength: number): Promise<void> {
  await new Upload({
    client: s3(),
    params: {
      ...location(),
      Body: body,
      ContentLength: contentLength,
      ContentType: 'application/vnd.pmtiles',
      // The archive replaces itself in place; readers revalidate by ETag.
      CacheControl: 'private, no-cache',
    },
  }).done();
}

export interface ArchiveRead {
  status: 200 | 206 | 304 | 404 | 416;
  headers: Record<string, string>;
  body?: Readable;
}

/**
 * One read of the archive for HTTP: a Range request answers 206 with Content-Range, a matching
 * If-None-Match answers 304, an unsatisfiable range 416; the ETag is the object's, so a rebuilt
 * archive invalidates what a reader cached.
 */
export async function readArchive(opts: { range?: string; ifNoneMatch?: string; head?: boolean }): Promise<ArchiveRead> {
  let out: GetObjectCommandOutput;
  try {
    const params = { ...location(), Range: opts.range, IfNoneMatch: opts.ifNoneMatch };
    out = opts.head
      ? ((await s3().send(new HeadObjectCommand(params))) as GetObjectCommandOutput)
      : await s3().send(new GetObjectCommand(params));
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    const code = e?.$metadata?.httpStatusCode;
    if (code === 304 || e?.name === 'NotModified') return { status: 304, headers: { ETag: opts.ifNoneMatch ?? '' } };
    if (code === 416 || e?.name === 'InvalidRange') return { status: 416, headers: {} };
    if (isNotFound(err)) return { status: 404, headers: {} };
    throw err;
  }
  const headers: Record<string, string> = {
    'Accept-Ranges': 'bytes',
    'Content-Type': 'application/vnd.pmtiles',
    'Cache-Control': 'private, no-cache',
  };
  if (out.ETag) headers.ETag = out.ETag;
  if (out.LastModified) headers['Last-Modified'] = out.LastModified.toUTCString();
  if (out.ContentLength !== undefined) headers['Content-Length'] = String(out.ContentLength);
  if (out.ContentRange) headers['Content-Range'] = out.ContentRange;
  const partial = Boolean(out.ContentRange) && Boolean(opts.range);
  return { status: partial ? 206 : 200, headers, body: opts.head ? undefined : (out.Body as Readable | undefined) };
}
