/**
 * Local PDF compression: Ghostscript re-encodes the images (downsampled, JPEG at an explicit
 * quality factor), then qpdf optimises the structure (object streams, recompressed Flate).
 *
 * The levels are explicit settings instead of Ghostscript's `/PDFSETTINGS` presets because the
 * presets do not shrink in order on scans (`/prepress` and `/printer` can grow a scanned PDF,
 * `/screen` can come out larger than `/ebook`); each level here lowers both the resolution and
 * the JPEG quality of the one below it. Whatever the level, the answer is never larger than the
 * upload: when nothing is gained the original is returned.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { config } from '../config';
import { AppError, errors } from '../errors';

export const LOCAL_LEVELS = ['balanced', 'high', 'extreme'] as const;
export type LocalLevel = (typeof LOCAL_LEVELS)[number];

/** Cloud levels of the PDF service (EXTERNAL-SERVICES.md); `extreme` is served locally. */
export const CLOUD_LEVELS = ['recommended', 'low'] as const;

interface LevelSettings {
  /** Target resolution of colour and grey images (mono images get twice as much). */
  dpi: number;
  /** JPEG quantisation factor (higher = smaller, blurrier); 0.76 is Ghostscript's /ebook. */
  qFactor: number;
}

export const LEVEL_SETTINGS: Record<LocalLevel, LevelSettings> = {
  balanced: { dpi: 150, qFactor: 0.76 },
  high: { dpi: 110, qFactor: 1.0 },
  // Spec 4.7: the extreme pipeline is 72 DPI with JPEG quality factor 1.5.
  extreme: { dpi: 72, qFactor: 1.5 },
};

export interface CompressResult {
  /** The file to send: the compressed one, or the original when nothing was gained. */
  path: string;
  originalSize: number;
  compressedSize: number;
  /** True when the original is returned unchanged. */
  unchanged: boolean;
}

interface RunFailure {
  code: number | null;
  stderr: string;
}

function run(bin: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { timeout: config.pdf.toolTimeoutMs, maxBuffer: 4 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, _stdout, stderr) => {
      if (!err) return resolve({ code: 0, stderr });
      const code = (err as NodeJS.ErrnoException & { code?: unknown }).code;
      if (typeof code === 'number') return resolve({ code, stderr });
      reject(Object.assign(new Error(`${path.basename(bin)} failed: ${err.message}`), { code: null, stderr } satisfies RunFailure));
    });
  });
}

export const notAPdf = () =>
  errors.badRequest('Fișierul trimis nu este un PDF.', [{ field: 'file', problem: 'not a PDF (no %PDF- header)' }]);

export const encryptedPdf = () =>
  new AppError(422, 'pdf_encrypted', 'PDF-ul este protejat cu parolă și nu poate fi comprimat.', {
    hint: 'Deblocați mai întâi fișierul (Instrumente PDF → Deblocare PDF), apoi comprimați-l.',
  });

const unreadablePdf = () =>
  new AppError(422, 'pdf_unreadable', 'PDF-ul este deteriorat și nu a putut fi citit.', {
    hint: 'Deschideți-l și salvați-l din nou dintr-un program PDF, apoi reîncercați.',
  });

/** Refuses what is not a PDF (400) and an encrypted PDF (422). */
export async function checkPdf(file: string): Promise<void> {
  const fh = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    // PDF readers accept the header anywhere in the first kilobyte (ISO 32000 implementation note).
    if (!head.subarray(0, bytesRead).includes('%PDF-')) throw notAPdf();
  } finally {
    await fh.close();
  }
  // qpdf --is-encrypted: 0 encrypted, 2 not encrypted; anything else could not read the file.
  const { code } = await run(config.pdf.qpdf, ['--is-encrypted', file]);
  if (code === 0) throw encryptedPdf();
  if (code !== 2) throw unreadablePdf();
}

function ghostscriptArgs(level: LocalLevel, input: string, output: string): string[] {
  const { dpi, qFactor } = LEVEL_SETTINGS[level];
  const jpeg = `<< /QFactor ${qFactor} /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2] >>`;
  return [
    '-q', '-dNOPAUSE', '-dBATCH', '-dSAFER',
    '-sDEVICE=pdfwrite',
    '-dCompatibilityLevel=1.5',
    // Re-encode embedded JPEGs too: a scan is usually one already.
    '-dPassThroughJPEGImages=false',
    '-dDetectDuplicateImages=true',
    '-dCompressFonts=true',
    '-dSubsetFonts=true',
    '-dDownsampleColorImages=true', '-dDownsampleGrayImages=true', '-dDownsampleMonoImages=true',
    '-dColorImageDownsampleType=/Bicubic', '-dGrayImageDownsampleType=/Bicubic', '-dMonoImageDownsampleType=/Subsample',
    `-dColorImageResolution=${dpi}`, `-dGrayImageResolution=${dpi}`, `-dMonoImageResolution=${dpi * 2}`,
    '-dColorImageDownsampleThreshold=1.0', '-dGrayImageDownsampleThreshold=1.0', '-dMonoImageDownsampleThreshold=1.0',
    '-dAutoFilterColorImages=false', '-dAutoFilterGrayImages=false',
    '-dColorImageFilter=/DCTEncode', '-dGrayImageFilter=/DCTEncode',
    `-sOutputFile=${output}`,
    '-c', `<< /ColorACSImageDict ${jpeg} /GrayACSImageDict ${jpeg} /ColorImageDict ${jpeg} /GrayImageDict ${jpeg} >> setdistillerparams`,
    '-f', input,
  ];
}

/** qpdf structural optimisation; exit 3 means warnings with a usable output. */
async function optimise(input: string, output: string): Promise<boolean> {
  const { code } = await run(config.pdf.qpdf, [
    '--object-streams=generate', '--compress-streams=y', '--recompress-flate', '--compression-level=9',
    '--remove-unreferenced-resources=yes', input, output,
  ]);
  return code === 0 || code === 3;
}

async function sizeOf(file: string): Promise<number> {
  return (await fs.stat(file)).size;
}

/**
 * Compresses `input` at `level` into files under `workDir` (the caller removes the directory).
 * Call `checkPdf` first.
 */
export async function compressPdf(input: string, level: LocalLevel, workDir: string): Promise<CompressResult> {
  const originalSize = await sizeOf(input);
  const rewritten = path.join(workDir, `gs-${level}.pdf`);
  const optimised = path.join(workDir, `qpdf-${level}.pdf`);
  const gs = await run(config.pdf.gs, ghostscriptArgs(level, input, rewritten));
  if (gs.code !== 0) throw unreadablePdf();
  const candidates = [{ path: rewritten, size: await sizeOf(rewritten) }];
  if (await optimise(rewritten, optimised)) candidates.push({ path: optimised, size: await sizeOf(optimised) });
  const best = candidates.reduce((a, b) => (b.size < a.size ? b : a));
  if (best.size >= originalSize) return { path: input, originalSize, compressedSize: originalSize, unchanged: true };
  return { path: best.path, originalSize, compressedSize: best.size, unchanged: false };
}

/** `plan.pdf` → `plan-comprimat.pdf` (Romanian, like the rest of what the user sees). */
export function compressedFileName(original: string): string {
  const base = original.replace(/\.pdf$/i, '') || 'document';
  return `${base}-comprimat.pdf`;
}
