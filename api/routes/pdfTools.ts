/**
 * PDF tools (spec 4.7, CONTRACT.md 4): compression. The upload is streamed to disk by the shared
 * helper (500 MB, 413 above), so these routes never hold a file in memory; the auth check runs
 * before a byte of the body is read. Every temp file lives in the upload's directory, which the
 * helper removes on every path (answer sent, error, client gone).
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Request, Response, Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { defineRoute, type AuthKind } from '../http/route';
import { withUpload, type UploadOptions } from '../http/upload';
import { AppError, errors } from '../../domain/errors';
import { contentDisposition } from '../http/contentDisposition';
import { CLOUD_LEVELS, LOCAL_LEVELS, checkPdf, compressPdf, compressedFileName, type LocalLevel } from '../../domain/pdf/compress';

const tags = ['pdf'];

/** What the PDF routes pass to the upload helper; a test lowers the limit to prove the 413. */
export const pdfUploadOptions: UploadOptions = { fileFields: ['file'] };

export function configurePdfUploads(o: Partial<UploadOptions>): void {
  Object.assign(pdfUploadOptions, o);
}

const auth: AuthKind = 'session';

async function compressAndSend(req: Request, res: Response, pickLevel: (fields: Record<string, string>) => LocalLevel): Promise<void> {
  await withUpload(req, pdfUploadOptions, async (up) => {
    const file = up.files[0];
    if (!file) throw errors.badRequest('Lipsește fișierul PDF (câmpul „file”).', [{ field: 'file', problem: 'required' }]);
    const level = pickLevel(up.fields);
    await checkPdf(file.path);
    const out = await compressPdf(file.path, level, path.dirname(file.path));
    res.status(200).set({
      'Content-Type': 'application/pdf',
      'Content-Length': String(out.compressedSize),
      'Content-Disposition': contentDisposition(compressedFileName(file.fileName)),
      'X-Original-Size': String(out.originalSize),
      'X-Compressed-Size': String(out.compressedSize),
      'X-Compression-Level': level,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    // Awaited inside the helper so the temp directory goes only after the last byte left.
    await pipeline(createReadStream(out.path), res);
  });
}

function levelFrom(fields: Record<string, string>): LocalLevel {
  const level = (fields.level ?? 'balanced').trim().toLowerCase();
  if ((LOCAL_LEVELS as readonly string[]).includes(level)) return level as LocalLevel;
  if ((CLOUD_LEVELS as readonly string[]).includes(level)) {
    throw new AppError(501, 'not_implemented', 'Nivelurile de comprimare în cloud nu sunt disponibile încă.', {
      hint: 'Folosiți unul dintre nivelurile locale: balanced, high sau extreme.',
    });
  }
  throw errors.badRequest('Nivelul de comprimare nu este valid.', [
    { field: 'level', problem: `expected one of ${[...LOCAL_LEVELS, ...CLOUD_LEVELS].join(', ')}` },
  ]);
}

export function registerPdfToolRoutes(router: Router): void {
  const failures = {
    413: 'The upload is over the limit (500 MB)',
    422: 'Encrypted (unlock it first) or unreadable PDF',
    501: 'Cloud level (recommended, low) not available',
  };
  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/compress-pdf',
      summary: 'Compress a PDF (multipart `file`, `level` balanced | high | extreme); sizes in X-Original-Size / X-Compressed-Size',
      tags,
      auth,
      response: { description: 'The compressed PDF, never larger than the upload', contentType: 'application/pdf' },
      failures,
    },
    ({ req, res }) => compressAndSend(req, res, levelFrom),
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
    ({ req, res }) => compressAndSend(req, res, () => 'extreme'),
  );
}
