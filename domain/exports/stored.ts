/**
 * An export's file: built and put in S3 (one object per job, key derived from the job id), opened
 * for download when finished, or streamed as a local export (no portal, no S3) straight into an
 * HTTP response. Called through the area's door (service.ts).
 */
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { GetObjectCommand, NoSuchKey, NotFound, HeadObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../config';
import { errors } from '../errors';
import { s3 } from '../storage/service';
import { buildExport, type BuildOptions } from './build';
import type { PipelineStep } from './reports';
import { uploadFile, uploadZip, writeZip } from './zip';

/** `export-bundle:42682:01J…` → `landreg/export-bundle/42682/01J…` in the exports bucket. */
export function exportObjectKey(jobId: string): string {
  if (!/^[a-z][a-z0-9-]*:[^:/]+(:[0-9A-HJKMNP-TV-Z]{26})?$/.test(jobId)) throw new Error(`unexpected job id ${jobId}`);
  return `landreg/${jobId.replaceAll(':', '/')}`;
}

export interface StoredExport {
  jobId: string;
  key: string;
  fileName: string;
  contentType: string;
  bytes: number;
  counts: Record<string, number>;
  /** The build's own steps plus the upload. */
  pipeline: PipelineStep[];
}

/** The S3 metadata key saying whether the stored file carries personal data (`included` or `hidden`). */
const PERSONAL_DATA_METADATA = 'personal-data';

/** Builds the export, streams it to S3 under the job's key, removes the temporary files. */
export async function buildAndStoreExport(
  opts: BuildOptions & { jobId: string; userId: string },
): Promise<StoredExport> {
  const built = await buildExport(opts);
  try {
    const key = exportObjectKey(opts.jobId);
    const started = Date.now();
    const target = {
      key,
      contentType: built.contentType,
      fileName: built.fileName,
      metadata: {
        'user-id': encodeURIComponent(opts.userId),
        'job-id': encodeURIComponent(opts.jobId),
        // Read by the download route before any byte is served (openExportDownload): a file built
        // with personal data goes only to a caller whose viewer may see them, when they download.
        [PERSONAL_DATA_METADATA]: opts.hidePersonal ? 'hidden' : 'included',
      },
    };
    let bytes: number;
    if (built.contentType === 'application/zip') {
      bytes = await uploadZip(built.entries, target);
    } else {
      const only = built.entries[0];
      await uploadFile(createReadStream(only.path!), target);
      bytes = built.report.files[0]?.bytes ?? 0;
    }
    const uploadStep: PipelineStep = {
      step: 'upload',
      label: 'Arhivare și încărcare',
      status: 'done',
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      detail: `${built.fileName}: ${bytes} octeți în depozitul de fișiere`,
    };
    opts.onStep?.(uploadStep);
    return {
      jobId: opts.jobId,
      key,
      fileName: built.fileName,
      contentType: built.contentType,
      bytes,
      counts: built.counts,
      pipeline: [...built.report.pipeline.slice(opts.pipelineBefore?.length ?? 0), uploadStep],
    };
  } finally {
    await built.cleanup();
  }
}

export interface ExportDownload {
  fileName: string;
  contentType: string;
  bytes: number | undefined;
  userId: string | null;
  /**
   * The file was built with personal data (CF numbers, owners, addresses): its metadata says so,
   * or says nothing (a file stored before the flag was written), which counts as personal: a
   * missing claim never widens access.
   */
  personalData: boolean;
  /** The file's bytes; 404 when it went away since it was looked up. Only called once the caller may have it. */
  open(): Promise<NodeJS.ReadableStream>;
}

const missing = (err: unknown) => err instanceof NotFound || err instanceof NoSuchKey || (err as { name?: string }).name === 'NotFound';

/**
 * The stored export of a job, or null when there is none (yet). Reads only the object's metadata
 * (HEAD): who asked for it and whether it carries personal data are known before any byte is
 * fetched, so a caller who may not have it never starts a download.
 */
export async function openExportDownload(jobId: string): Promise<ExportDownload | null> {
  const Key = exportObjectKey(jobId);
  const Bucket = config.s3.buckets.exports;
  let head;
  try {
    head = await s3().send(new HeadObjectCommand({ Bucket, Key }));
  } catch (err) {
    if (missing(err)) return null;
    throw err;
  }
  const meta = head.Metadata ?? {};
  return {
    fileName: meta.filename ? decodeURIComponent(meta.filename) : `${jobId.replaceAll(':', '_')}.zip`,
    contentType: head.ContentType ?? 'application/octet-stream',
    bytes: head.ContentLength,
    userId: meta['user-id'] ? decodeURIComponent(meta['user-id']) : null,
    personalData: meta[PERSONAL_DATA_METADATA] !== 'hidden',
    async open() {
      try {
        const obj = await s3().send(new GetObjectCommand({ Bucket, Key }));
        return obj.Body as NodeJS.ReadableStream;
      } catch (err) {
        if (missing(err)) throw errors.notFound('Fișierul exportului nu mai există.');
        throw err;
      }
    },
  };
}

/**
 * export-local (spec 4.4): the bundle built from the store as it is (no sync, no portal call)
 * and streamed as a ZIP into `out`. Returns the download name before the first byte is written,
 * through `onReady`, so the caller can set its headers.
 */
export async function streamLocalExport(
  opts: Omit<BuildOptions, 'target' | 'jobId' | 'pipelineBefore'> & { mode: 'base' | 'magic' },
  out: Writable,
  onReady: (fileName: string) => void,
): Promise<number> {
  const built = await buildExport({ ...opts, target: { kind: 'bundle', mode: opts.mode }, jobId: null });
  try {
    onReady(built.fileName.replace('_export-', '_export-local-'));
    return await writeZip(built.entries, out);
  } finally {
    await built.cleanup();
  }
}
