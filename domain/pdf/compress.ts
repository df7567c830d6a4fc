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
import fs from 'node:fs/promises';
import path from 'node:path';
import { config } from '../config';
import { runTool, timeoutForInput } from '../childProcess';
import { AppError, errors } from '../errors';
import { LOSSLESS_LEVEL, type LocalLevel, type LossyLevel } from './rules';

export interface LevelSettings {
  /** Target resolution of colour and grey images (mono images get twice as much). */
  dpi: number;
  /** JPEG quantisation factor (higher = smaller, blurrier); 0.76 is Ghostscript's /ebook. */
  qFactor: number;
}

export const LEVEL_SETTINGS: Record<LossyLevel, LevelSettings> = {
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

/** What a tool run needs besides its arguments: the caller's signal (client gone) and the input's size. */
export interface RunContext {
  signal?: AbortSignal;
}

/** The client left: the run was killed and nobody waits for an answer. */
export class PdfRunCancelled extends Error {
  constructor() {
    super('PDF tool run cancelled: the client went away');
    this.name = 'PdfRunCancelled';
  }
}

const pdfTimeout = () =>
  new AppError(504, 'conversion_timeout', 'Prelucrarea PDF-ului a durat prea mult și a fost oprită.', {
    hint: 'Încercați un nivel mai blând sau împărțiți documentul în mai multe fișiere.',
  });

/**
 * One Ghostscript or qpdf run (domain/childProcess.ts): memory-limited, its own process group,
 * a timeout that grows with the input (`inputBytes`), killed when the client goes away.
 */
async function run(bin: string, args: string[], inputBytes: number, ctx: RunContext): Promise<{ code: number; stderr: string }> {
  const timeoutMs = timeoutForInput(inputBytes, config.pdf.toolBaseTimeoutMs, config.pdf.toolMsPerMb, config.pdf.toolTimeoutMs);
  const r = await runTool(bin, args, { timeoutMs, signal: ctx.signal });
  if (r.aborted) throw new PdfRunCancelled();
  if (r.timedOut) throw pdfTimeout();
  // Killed by anything else (the memory limit makes the tool abort): an unreadable file for the user.
  return { code: r.code ?? -1, stderr: r.stderr };
}

export const notAPdf = () =>
  errors.badRequest('Fișierul trimis nu este un PDF.', [{ field: 'file', problem: 'not a PDF (no %PDF- header)' }]);

export const encryptedPdf = () =>
  new AppError(422, 'pdf_encrypted', 'PDF-ul este protejat cu parolă și nu poate fi comprimat.', {
    hint: 'Deblocați mai întâi fișierul (Instrumente PDF → Deblocare PDF), apoi comprimați-l.',
  });

export const unreadablePdf = () =>
  new AppError(422, 'pdf_unreadable', 'PDF-ul este deteriorat și nu a putut fi citit.', {
    hint: 'Deschideți-l și salvați-l din nou dintr-un program PDF, apoi reîncercați.',
  });

/** True when the file carries a `%PDF-` header. */
export async function hasPdfHeader(file: string): Promise<boolean> {
  const fh = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    // PDF readers accept the header anywhere in the first kilobyte (ISO 32000 implementation note).
    return head.subarray(0, bytesRead).includes('%PDF-');
  } finally {
    await fh.close();
  }
}

/** 0 encrypted, 2 not encrypted, anything else: qpdf could not read the file. */
export async function encryptionState(file: string, ctx: RunContext = {}): Promise<'encrypted' | 'plain' | 'unreadable'> {
  const { code } = await run(config.pdf.qpdf, ['--is-encrypted', file], await sizeOf(file), ctx);
  return code === 0 ? 'encrypted' : code === 2 ? 'plain' : 'unreadable';
}

/** Refuses what is not a PDF (400) and an encrypted PDF (422). */
export async function checkPdf(file: string, ctx: RunContext = {}): Promise<void> {
  if (!(await hasPdfHeader(file))) throw notAPdf();
  // qpdf --is-encrypted: 0 encrypted, 2 not encrypted; anything else could not read the file.
  const state = await encryptionState(file, ctx);
  if (state === 'encrypted') throw encryptedPdf();
  if (state === 'unreadable') throw unreadablePdf();
}

function ghostscriptArgs({ dpi, qFactor }: LevelSettings, input: string, output: string): string[] {
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
async function optimise(input: string, output: string, ctx: RunContext): Promise<boolean> {
  const { code } = await run(
    config.pdf.qpdf,
    ['--object-streams=generate', '--compress-streams=y', '--recompress-flate', '--compression-level=9', '--remove-unreferenced-resources=yes', input, output],
    await sizeOf(input),
    ctx,
  );
  return code === 0 || code === 3;
}

export async function sizeOf(file: string): Promise<number> {
  return (await fs.stat(file)).size;
}

/**
 * Compresses `input` at `level` into files under `workDir` (the caller removes the directory).
 * Call `checkPdf` first.
 */
export async function compressPdf(input: string, level: LocalLevel, workDir: string, ctx: RunContext = {}): Promise<CompressResult> {
  if (level !== LOSSLESS_LEVEL) return compressWithSettings(input, LEVEL_SETTINGS[level], workDir, level, ctx);
  const originalSize = await sizeOf(input);
  const optimised = path.join(workDir, 'qpdf-lossless.pdf');
  if (!(await optimise(input, optimised, ctx))) throw unreadablePdf();
  return keepSmaller(input, originalSize, optimised, await sizeOf(optimised));
}

/**
 * The pipeline behind every level (the PDF service simulator has its own): Ghostscript with `settings`,
 * then qpdf; the smallest candidate, or the original when nothing is gained.
 */
export async function compressWithSettings(
  input: string,
  settings: LevelSettings,
  workDir: string,
  tag = 'out',
  opts: RunContext & { neverLarger?: boolean } = {},
): Promise<CompressResult> {
  const originalSize = await sizeOf(input);
  const rewritten = path.join(workDir, `gs-${tag}.pdf`);
  const optimised = path.join(workDir, `qpdf-${tag}.pdf`);
  const gs = await run(config.pdf.gs, ghostscriptArgs(settings, input, rewritten), originalSize, opts);
  if (gs.code !== 0) throw unreadablePdf();
  const candidates = [{ path: rewritten, size: await sizeOf(rewritten) }];
  if (await optimise(rewritten, optimised, opts)) candidates.push({ path: optimised, size: await sizeOf(optimised) });
  const best = candidates.reduce((a, b) => (b.size < a.size ? b : a));
  if (opts.neverLarger === false) return { path: best.path, originalSize, compressedSize: best.size, unchanged: false };
  return keepSmaller(input, originalSize, best.path, best.size);
}

/** The never-larger rule: the candidate when it is smaller than the original, else the original. */
export function keepSmaller(original: string, originalSize: number, candidate: string, candidateSize: number): CompressResult {
  if (candidateSize >= originalSize) return { path: original, originalSize, compressedSize: originalSize, unchanged: true };
  return { path: candidate, originalSize, compressedSize: candidateSize, unchanged: false };
}
