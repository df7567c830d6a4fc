/**
 * ZIP archives of export files, streamed: files are read from disk as the archive needs them and
 * the archive flows to S3 (multipart upload) or to an HTTP response, so no whole UAT is ever held
 * in memory (at most ZIP_UPLOAD_PART_BYTES x ZIP_UPLOAD_QUEUE for an upload).
 */
import { contentDisposition } from '../storage/rules';
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Upload } from '@aws-sdk/lib-storage';
import { ZipArchive } from 'archiver';
import { config } from '../config';
import { s3 } from '../storage/service';

/** zlib level: GPKG and CSV shrink ~5x at 1 already; higher levels cost time for a few percent. */
export const ZIP_LEVEL = 1;
/** S3 multipart part size and parts in flight: the upload's whole memory budget. */
export const ZIP_UPLOAD_PART_BYTES = 8 * 1024 * 1024;
export const ZIP_UPLOAD_QUEUE = 2;

export interface ZipEntry {
  /** Name inside the archive. */
  name: string;
  /** A file on disk (read lazily), or ... */
  path?: string;
  /** ... small generated content (reports). */
  content?: string | Buffer;
}

function archiveOf(entries: ZipEntry[]): ZipArchive {
  const zip = new ZipArchive({ zlib: { level: ZIP_LEVEL } });
  for (const e of entries) {
    if (e.path) zip.file(e.path, { name: e.name });
    else zip.append(e.content ?? '', { name: e.name });
  }
  return zip;
}

/** Streams the archive into `out` (an HTTP response); resolves with the bytes written. */
export async function writeZip(entries: ZipEntry[], out: Writable): Promise<number> {
  const zip = archiveOf(entries);
  const done = pipeline(zip, out);
  await Promise.all([zip.finalize(), done]);
  return zip.pointer();
}

export interface S3Target {
  bucket?: string;
  key: string;
  contentType: string;
  /** Shown to the browser on download (RFC 6266); the download route sets it again. */
  fileName: string;
  metadata?: Record<string, string>;
}

/** Streams a file or an archive body to S3 as a multipart upload. */
async function upload(body: NodeJS.ReadableStream, target: S3Target): Promise<void> {
  const up = new Upload({
    client: s3(),
    partSize: ZIP_UPLOAD_PART_BYTES,
    queueSize: ZIP_UPLOAD_QUEUE,
    params: {
      Bucket: target.bucket ?? config.s3.buckets.exports,
      Key: target.key,
      Body: body as PassThrough,
      ContentType: target.contentType,
      ContentDisposition: contentDisposition(target.fileName),
      Metadata: { filename: encodeURIComponent(target.fileName), ...(target.metadata ?? {}) },
    },
  });
  await up.done();
}

/** Builds the archive and streams it to S3; resolves with the archive's size. */
export async function uploadZip(entries: ZipEntry[], target: S3Target): Promise<number> {
  const zip = archiveOf(entries);
  const pass = new PassThrough();
  const piping = pipeline(zip, pass);
  await Promise.all([zip.finalize(), piping, upload(pass, target)]);
  return zip.pointer();
}

/** Streams one file from disk to S3. */
export async function uploadFile(stream: NodeJS.ReadableStream, target: S3Target): Promise<void> {
  await upload(stream, target);
}

