/**
 * PDF tools (spec 4.7, CONTRACT.md 4): compression. The upload is streamed to disk by the shared
 * helper (500 MB, 413 above), so these routes never hold a file in memory; the auth check runs
 * before a byte of the body is read. Every temp file lives in the upload's directory, which the
 * helper removes on every path (answer sent, error, client gone).
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Request, Response, Router } from 'express';
import { defineRoute, type AuthKind } from '../http/route';
import { withUpload, type UploadOptions } from '../http/upload';
import { errors } from '../../domain/errors';
import { clientGone, sendAttachment } from '../http/download';
import { heavyWork, holdSlot } from '../http/rateLimit';
import { CLOUD_LEVELS, LOCAL_LEVELS, compressedFileName, unlockedFileName, type CloudLevel, type LocalLevel, type PdfChoice } from '../../domain/pdf/rules';
import { PdfRunCancelled, type PdfService } from '../../domain/pdf/service';

const tags = ['pdf'];

/** The PDF routes' upload settings (the upload helper's defaults); a test lowers the limit to prove the 413. */
export type PdfRouteOptions = Omit<UploadOptions, 'fileFields'>;

const auth: AuthKind = 'session';

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

function compressAndSend(pdf: PdfService, uploads: UploadOptions, req: Request, res: Response, pick: (fields: Record<string, string>) => PdfChoice): Promise<void> {
  return heavyPdf(req, res, (signal) => withUpload(req, uploads, async (up) => {
    const file = up.files[0];
    if (!file) throw errors.badRequest('Lipsește fișierul PDF (câmpul „file”).', [{ field: 'file', problem: 'required' }]);
    const choice = pick(up.fields);
    const out = await pdf.compress(file, choice, path.dirname(file.path), signal);
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
function choiceFrom(fields: Record<string, string>): PdfChoice {
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

function unlockAndSend(pdf: PdfService, uploads: UploadOptions, req: Request, res: Response): Promise<void> {
  return heavyPdf(req, res, (signal) => withUpload(req, uploads, async (up) => {
    const file = up.files[0];
    const problems = [
      ...(file ? [] : [{ field: 'file', problem: 'required' }]),
      ...(up.fields.password ? [] : [{ field: 'password', problem: 'required' }]),
    ];
    if (problems.length) throw errors.badRequest('Trimiteți fișierul PDF (câmpul „file”) și parola lui (câmpul „password”).', problems);
    const out = path.join(path.dirname(file!.path), 'unlocked.pdf');
    const size = await pdf.unlock(file!, up.fields.password!, out, signal);
    await sendPdf(res, out, size, unlockedFileName(file!.fileName));
  }));
}

export function registerPdfToolRoutes(router: Router, pdf: PdfService, opts: PdfRouteOptions = {}): void {
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
    ({ req, res }) => compressAndSend(pdf, uploads, req, res, choiceFrom),
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
    ({ req, res }) => compressAndSend(pdf, uploads, req, res, () => ({ mode: 'local', level: 'extreme' })),
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
    ({ req, res }) => unlockAndSend(pdf, uploads, req, res),
  );
}
