/**
 * The PDF tools' door (docs/architecture.md "Areas"): compression (locally with Ghostscript and
 * qpdf, or through the cloud PDF service) and unlocking (the cloud service only), on files the
 * caller holds on disk. Built once per process by `domain/services.ts` `createServices`; the cloud
 * calls are paced on the store's shared schedule. Its levels and file names are in `rules.ts`.
 */
import path from 'node:path';
import { AppError } from '../errors';
import type { AreaDeps } from '../areaDeps';
import { callPdfService } from './cloud';
import { checkPdf, compressPdf, encryptionState, hasPdfHeader, keepSmaller, notAPdf, unreadablePdf, type CompressResult } from './compress';
import type { PdfChoice } from './rules';

export { PdfRunCancelled } from './compress';

/** A PDF on disk: where it is, the name it came with, its size in bytes. */
export interface PdfFile {
  path: string;
  fileName: string;
  size: number;
}

export function createPdfService({ store }: Pick<AreaDeps, 'store'>) {
  const { pool } = store;
  /** The file compressed in `dir` at the chosen level, never larger than it (the original when nothing is gained). */
  async function compressAt(file: PdfFile, choice: PdfChoice, dir: string, signal?: AbortSignal): Promise<CompressResult> {
    if (choice.mode === 'local') return compressPdf(file.path, choice.level, dir, { signal });
    const answered = path.join(dir, `cloud-${choice.level}.pdf`);
    const size = await callPdfService(pool, 'compress', file, { level: choice.level }, answered, signal);
    // The service may answer a larger file (real ones do): the never-larger rule holds here too.
    return keepSmaller(file.path, file.size, answered, size);
  }
  return {
    /** An upload compressed: what is not a PDF is refused (400), an encrypted or unreadable one too (422). */
    async compress(file: PdfFile, choice: PdfChoice, dir: string, signal?: AbortSignal): Promise<CompressResult> {
      await checkPdf(file.path, { signal });
      return compressAt(file, choice, dir, signal);
    },
    /** The compression alone, for a file known to be a plain PDF (the bench's corpus). */
    compressAt,
    /**
     * The password removed by the cloud service into `outPath`; answers its size. Refuses what is
     * not a PDF (400), an unreadable or unencrypted one (422), a wrong password (403).
     */
    async unlock(file: PdfFile, password: string, outPath: string, signal?: AbortSignal): Promise<number> {
      if (!(await hasPdfHeader(file.path))) throw notAPdf();
      const state = await encryptionState(file.path, { signal });
      if (state === 'unreadable') throw unreadablePdf();
      if (state === 'plain') {
        throw new AppError(422, 'pdf_not_encrypted', 'PDF-ul nu este protejat cu parolă: nu este nimic de deblocat.', {
          hint: 'Fișierul poate fi folosit (sau comprimat) așa cum este.',
        });
      }
      return callPdfService(pool, 'unlock', file, { password }, outPath, signal);
    },
  };
}

export type PdfService = ReturnType<typeof createPdfService>;
