/**
 * PDF tools (spec 4.7, CONTRACT.md 4): compression. The upload is streamed to disk by the shared
 * helper (500 MB, 413 above), so these routes never hold a file in memory; the auth check runs
 * before a byte of the body is read. Every temp file lives in the upload's directory, which the
 * helper removes on every path (answer sent, error, client gone).
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Request, Response, Router } from 'express';
import type pg from 'pg';
import { defineRoute, type AuthKind } from '../http/route';
import { withUpload, type UploadOptions } from '../http/upload';
import { AppError, errors } from '../../domain/errors';
import type { Store } from '../../domain/db/store';
import { clientGone, sendAttachment } from '../http/download';
import { heavyWork, holdSlot } from '../http/rateLimit';
import {
  CLOUD_LEVELS,
  LOCAL_LEVELS,
  checkPdf,
  compressPdf,
  compressedFileName,
  encryptionState,
  hasPdfHeader,
  keepSmaller,
  notAPdf,
  PdfRunCancelled,
  unlockedFileName,
  unreadablePdf,
  type CloudLevel,
  type CompressResult,
  type LocalLevel,
} from '../../domain/pdf/compress';
import { callPdfService } from '../../domain/pdf/service';

const tags = ['pdf'];

/** The PDF routes' upload settings (the upload helper's defaults); a test lowers the limit to prove the 413. */
export type PdfRouteOptions = Omit<UploadOptions, 'fileFields'>;

const auth: AuthKind = 'session';

type Choice = { mode: 'local'; level: LocalLevel } | { mode: 'cloud'; level: CloudLevel };

// Awaited inside the upload helper so the temp directory goes only after the last byte left.
function sendPdf(res: Response, file: string, size: number, fileName: string, headers: Record<string, string> = {}): Promise<void> {
  return sendAttachment(res, createReadStream(file), { contentType: 'application/pdf', fileName, size, headers });
}

/**
 * Runs a PDF route under the PDF tools' caps (429 past them, before a byte of the upload is read);
 * the tools it starts are killed when the client leaves, and then nothing is answered.
 */
async function heavyPdf(req: Request, res: Response, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  await holdSlot(heavyWork.pdf, req, res);
  const signal = clientGone(res);
  try {
    await work(signal);
  } catch (err) {
    if (err instanceof PdfRunCancelled || signal.aborted) return;
    throw err;
  }
}

function compressAndSend(db: pg.Pool, uploads: UploadOptions, req: Request, res: Response, pick: (fields: Record<string, string>) => Choice): Promise<void> {
  return heavyPdf(req, res, (signal) => withUpload(req, uploads, async (up) => {
    const file = up.files[0];
    if (!file) throw errors.badRequest('Lipsește fișierul PDF (câmpul „file”).', [{ field: 'file', problem: 'required' }]);
    const choice = pick(up.fields);
    await checkPdf(file.path, { signal });
    const dir = path.dirname(file.path);
    let out: CompressResult;
    if (choice.mode === 'local') {
      out = await compressPdf(file.path, choice.level, dir, { signal });
    } else {
      const answered = path.join(dir, `cloud-${choice.level}.pdf`);
      const size = await callPdfService(db, 'compress', { path: file.path, fileName: file.fileName }, { level: choice.level }, answered, signal);
      // The service may answer a larger file (real ones do): the never-larger rule holds here too.
      out = keepSmaller(file.path, file.size, answered, size);
    }
    await sendPdf(res, out.path, out.compressedSize, compressedFileName(file.fileName), {
      'X-Original-Size': String(out.originalSize),
      'X-Compressed-Size': String(out.compressedSize),
      'X-Compression-Level': choice.level,
      'X-Compression-Mode': choice.mode,
    });
  }));
}

const ALL_LEVELS = [...new Set<string>([...LOCAL_LEVELS, ...CLOUD_LEVELS])];

/**
 * `level` picks the pipeline: balanced, high and lossless are local, recommended and low are cloud levels;
 * `extreme` exists in both and is local unless `mode=cloud` says otherwise.
 */
function choiceFrom(fields: Record<string, string>): Choice {
  const level = (fields.level ?? 'balanced').trim().toLowerCase();
  const mode = (fields.mode ?? '').trim().toLowerCase();
  if (mode && mode !== 'local' && mode !== 'cloud') {
    throw errors.badRequest('Modul de comprimare nu este valid.', [{ field: 'mode', problem: 'expected local or cloud' }]);
  }
  const local = (LOCAL_LEVELS as readonly string[]).includes(level);
  const cloud = (CLOUD_LEVELS as readonly string[]).includes(level);
  if (mode === 'cloud' && cloud) return { mode: 'cloud', level: level as CloudLevel };
  if (mode === 'local' && local) return { mode: 'local', level: level as LocalLevel };
  if (!mode && local) return { mode: 'local', level: level as LocalLevel };
  if (!mode && cloud) return { mode: 'cloud', level: level as CloudLevel };
  if (mode && (local || cloud)) {
    throw errors.badRequest(`Nivelul „${level}” nu există în modul ${mode === 'cloud' ? 'cloud' : 'local'}.`, [
      { field: 'level', problem: `expected one of ${(mode === 'cloud' ? CLOUD_LEVELS : LOCAL_LEVELS).join(', ')}` },
    ]);
  }
  throw errors.badRequest('Nivelul de comprimare nu este valid.', [{ field: 'level', problem: `expected one of ${ALL_LEVELS.join(', ')}` }]);
}

function unlockAndSend(db: pg.Pool, uploads: UploadOptions, req: Request, res: Response): Promise<void> {
  return heavyPdf(req, res, (signal) => withUpload(req, uploads, async (up) => {
    const file = up.files[0];
    const problems = [
      ...(file ? [] : [{ field: 'file', problem: 'required' }]),
      ...(up.fields.password ? [] : [{ field: 'password', problem: 'required' }]),
    ];
    if (problems.length) throw errors.badRequest('Trimiteți fișierul PDF (câmpul „file”) și parola lui (câmpul „password”).', problems);
    if (!(await hasPdfHeader(file!.path))) throw notAPdf();
    const state = await encryptionState(file!.path, { signal });
    if (state === 'unreadable') throw unreadablePdf();
    if (state === 'plain') {
      throw new AppError(422, 'pdf_not_encrypted', 'PDF-ul nu este protejat cu parolă: nu este nimic de deblocat.', {
        hint: 'Fișierul poate fi folosit (sau comprimat) așa cum este.',
      });
    }
    const out = path.join(path.dirname(file!.path), 'unlocked.pdf');
    const size = await callPdfService(db, 'unlock', { path: file!.path, fileName: file!.fileName }, { password: up.fields.password! }, out, signal);
    await sendPdf(res, out, size, unlockedFileName(file!.fileName));
  }));
}

export function registerPdfToolRoutes(router: Router, store: Store, opts: PdfRouteOptions = {}): void {
  const uploads: UploadOptions = { ...opts, fileFields: ['file'] };
  const failures = {
    413: 'The upload is over the limit (500 MB)',
    422: 'Encrypted (unlock it first) or unreadable PDF',
    429: 'Past the PDF tools\' per-user or global cap (Retry-After)',
    502: 'Cloud level: the PDF service answered an error',
    503: 'Cloud level: the PDF service is unavailable',
    504: 'A local tool ran past its time limit (it grows with the file) and was stopped',
  };
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/compress-pdf',
      summary:
        'Compress a PDF (multipart `file`, `level` balanced | high | extreme | lossless locally, recommended | extreme | low in the cloud, `mode` local | cloud); sizes in X-Original-Size / X-Compressed-Size',
      tags,
      auth,
      response: { description: 'The compressed PDF, never larger than the upload', contentType: 'application/pdf' },
      failures,
    },
    ({ req, res }) => compressAndSend(store.pool, uploads, req, res, choiceFrom),
  );
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/compress-pdf/extreme',
      summary: 'Extreme compression: images to 72 DPI, JPEG quality factor 1.5, then qpdf optimisation (multipart `file`)',
      tags,
      auth,
      response: { description: 'The compressed PDF, never larger than the upload', contentType: 'application/pdf' },
      failures,
    },
    ({ req, res }) => compressAndSend(store.pool, uploads, req, res, () => ({ mode: 'local', level: 'extreme' })),
  );
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/pdf/unlock',
      summary: 'Remove the password of a PDF through the PDF service (multipart `file`, `password`)',
      tags,
      auth,
      response: { description: 'The unlocked PDF as an attachment', contentType: 'application/pdf' },
      failures: {
        403: 'Wrong password',
        413: 'The upload is over the limit (500 MB)',
        422: 'Not encrypted, or unreadable PDF',
        429: 'Past the PDF tools\' per-user or global cap (Retry-After)',
        502: 'The PDF service answered an error',
        503: 'The PDF service is unavailable',
      },
    },
    ({ req, res }) => unlockAndSend(store.pool, uploads, req, res),
  );
}
