/**
 * Streamed multipart uploads (CONTRACT.md 5: 500 MB, streamed to disk), for every route that
 * takes files (registry attachments, PDF tools). Files go straight from the socket to a private
 * temp directory (busboy), never into memory; size and SHA-256 are computed on the way.
 *
 *   await withUpload(req, { fileFields: ['file'] }, async (up) => { ... up.files[0].path ... });
 *
 * The temp directory is removed on every path: success, handler error, limit exceeded (413
 * `payload_too_large`), malformed body (400) and client disconnect.
 *
 * Before a byte is read, the upload takes one of its user's upload slots (`heavyWork.upload`:
 * per user only, 429 past it, so one user's large upload never refuses another user's file) and
 * reserves its declared length (the limit when undeclared) on the temp disk's budget: the bytes
 * of every upload in flight stay under `tmpBudgetBytes`, and the disk keeps `tmpFreeMarginBytes`
 * free (fs.statfs); otherwise 507 `insufficient_storage` before the disk fills. Both are given
 * back when the request ends.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { config } from '../../domain/config';
import { AppError, errors } from '../../domain/errors';
import { makeTempDir } from '../../domain/storage/service';
import { callerKey, heavyWork } from './rateLimit';
import { countOf } from '../../domain/text/plural';
import { onClose } from './download';

export interface UploadedFile {
  field: string;
  /** Absolute path of the temp file (gone after the handler returns). */
  path: string;
  /** The client's file name, as sent (UTF-8). */
  fileName: string;
  mimeType: string;
  size: number;
  sha256: string;
}

export interface Upload {
  files: UploadedFile[];
  /** Non-file fields (last value wins). */
  fields: Record<string, string>;
}

export interface UploadOptions {
  /** Per-file and whole-body byte limit; default config.uploads.maxBytes (500 MB). */
  maxBytes?: number;
  /** Accepted file fields; a file in another field is a 400. Default: any. */
  fileFields?: string[];
  maxFiles?: number;
  /** Where the per-request temp directory is made; default config.uploads.tmpDir. */
  tmpDir?: string;
  /** Bytes of uploads in flight in all; default config.uploads.tmpBudgetBytes. */
  tmpBudgetBytes?: number;
  /** Free bytes the temp disk keeps; default config.uploads.tmpFreeMarginBytes. */
  tmpFreeMarginBytes?: number;
}

/**
 * Browsers (and undici's FormData) escape `"`, CR and LF in a multipart file name as %22, %0D
 * and %0A (WHATWG HTML "multipart/form-data encoding"); undo exactly those.
 */
export function multipartFileName(raw: string | undefined): string {
  const name = (raw ?? '').replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  return name.normalize('NFC') || 'fisier';
}

function tooLarge(maxBytes: number): AppError {
  const mb = Math.round(maxBytes / (1024 * 1024));
  return new AppError(413, 'payload_too_large', `Fișierul depășește dimensiunea maximă permisă (${mb} MB).`, {
    // The rest of the body is not read: the connection is closed after the answer.
    headers: { Connection: 'close' },
  });
}

/** Receives the multipart body into a fresh temp directory; the caller owns (and removes) `dir`. */
async function receive(req: Request, opts: Required<Pick<UploadOptions, 'maxBytes' | 'maxFiles'>> & UploadOptions, dir: string): Promise<Upload> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    throw errors.badRequest('Cererea trebuie trimisă ca multipart/form-data.', [{ field: '(body)', problem: 'multipart/form-data expected' }]);
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  // Multipart framing adds a little; a body declared far over the limit is refused unread.
  if (Number.isFinite(declared) && declared > opts.maxBytes + 1024 * 1024) throw tooLarge(opts.maxBytes);

  return new Promise<Upload>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fileSize: opts.maxBytes, files: opts.maxFiles, fields: 50, fieldSize: 64 * 1024 },
      });
    } catch (err) {
      reject(errors.badRequest('Corpul multipart nu este valid.', [{ field: '(body)', problem: (err as Error).message }]));
      return;
    }
    const files: UploadedFile[] = [];
    const fields: Record<string, string> = {};
    const writes: Array<Promise<void>> = [];
    let failed: AppError | Error | null = null;
    const active = new Set<NodeJS.ReadableStream & { destroy(): void }>();
    let n = 0;
    const fail = (err: AppError | Error) => {
      if (failed) return;
      failed = err;
      req.unpipe(bb);
      req.resume();
      // Open file streams would otherwise wait forever for bytes that no longer come.
      for (const s of active) s.destroy();
      reject(err);
    };
    const onAbort = () => fail(errors.badRequest('Încărcarea a fost întreruptă.'));
    req.on('aborted', onAbort);
    // Also when the client left before this listened (while the session, the slot or the disk was checked).
    onClose(req, () => {
      if (!req.complete) onAbort();
    });

    bb.on('file', (field, stream, info) => {
      if (failed || (opts.fileFields && !opts.fileFields.includes(field))) {
        stream.resume();
        if (!failed) fail(errors.badRequest(`Câmpul de fișier „${field}” nu este așteptat.`, [{ field, problem: 'unexpected file field' }]));
        return;
      }
      active.add(stream);
      stream.on('close', () => active.delete(stream));
      const target = path.join(dir, `f${n++}`);
      const hash = createHash('sha256');
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          hash.update(chunk);
          cb(null, chunk);
        },
      });
      stream.on('limit', () => fail(tooLarge(opts.maxBytes)));
      writes.push(
        pipeline(stream, meter, createWriteStream(target)).then(
          () => {
            if (!failed) {
              files.push({ field, path: target, fileName: multipartFileName(info.filename), mimeType: info.mimeType || 'application/octet-stream', size, sha256: hash.digest('hex') });
            }
          },
          (err: Error) => fail(err),
        ),
      );
    });
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('filesLimit', () => fail(errors.badRequest(`Cel mult ${countOf(opts.maxFiles, 'fișier', 'fișiere')} pe cerere.`)));
    bb.on('error', (err: Error) => fail(errors.badRequest('Corpul multipart nu este valid.', [{ field: '(body)', problem: err.message }])));
    bb.on('close', () => {
      Promise.all(writes).then(() => {
        if (failed) return;
        resolve({ files, fields });
      }, fail);
    });
    req.pipe(bb);
  });
}

/**
 * Receives the upload, runs `fn` with it, and removes every temp file afterwards, whatever
 * happened. `fn` may move a file away (rename) to keep it.
 */
export async function withUpload<T>(req: Request, opts: UploadOptions, fn: (upload: Upload) => Promise<T>): Promise<T> {
  const base = opts.tmpDir ?? config.uploads.tmpDir;
  const maxBytes = opts.maxBytes ?? config.uploads.maxBytes;
  const slot = heavyWork.upload.tryAcquire(callerKey(req));
  // The user's next upload may start as soon as this one's answer is out (its temp files still
  // being removed keep their disk reservation until they are gone).
  req.res?.once('finish', slot);
  try {
    await fs.mkdir(base, { recursive: true });
    const unreserve = await reserveDisk(req, base, maxBytes, opts);
    try {
      const dir = await makeTempDir('upload', base);
      try {
        const upload = await receive(req, { maxBytes, maxFiles: opts.maxFiles ?? 1, ...opts }, dir);
        return await fn(upload);
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    } finally {
      unreserve();
    }
  } finally {
    slot();
  }
}

/** Bytes reserved on the temp disk by the uploads in flight in this process. */
let reservedBytes = 0;

const insufficientStorage = () =>
  new AppError(507, 'insufficient_storage', 'Spațiul temporar pentru încărcări este ocupat în acest moment; reîncercați peste câteva minute.', {
    // Nothing of the body is written; Node discards the rest as it arrives.
    headers: { 'Retry-After': '60' },
  });

/** Reserves the upload's bytes on the budget and checks the disk's free space (507 otherwise); returns the release. */
async function reserveDisk(req: Request, base: string, maxBytes: number, opts: UploadOptions): Promise<() => void> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const want = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, maxBytes + 1024 * 1024) : maxBytes;
  if (reservedBytes + want > (opts.tmpBudgetBytes ?? config.uploads.tmpBudgetBytes)) throw insufficientStorage();
  reservedBytes += want;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    reservedBytes -= want;
  };
  try {
    const disk = await fs.statfs(base);
    // The reservations of uploads still arriving are not on the disk yet: counted as if they were.
    if (disk.bavail * disk.bsize - reservedBytes < (opts.tmpFreeMarginBytes ?? config.uploads.tmpFreeMarginBytes)) throw insufficientStorage();
  } catch (err) {
    release();
    throw err;
  }
  return release;
}
