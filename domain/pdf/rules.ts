/**
 * The PDF tools' pure rules, importable from anywhere: the compression levels of each pipeline and
 * the names of the files they answer. No I/O.
 */
/** Levels that rewrite images (Ghostscript, then qpdf), gentlest first. */
export const LOSSY_LEVELS = ['balanced', 'high', 'extreme'] as const;
export type LossyLevel = (typeof LOSSY_LEVELS)[number];
/**
 * Spec 4.7's "local lossless structural mode": qpdf alone (object streams, recompressed flate,
 * unreferenced resources dropped), every image and glyph left bit for bit as it was.
 */
export const LOSSLESS_LEVEL = 'lossless';
export const LOCAL_LEVELS = [...LOSSY_LEVELS, LOSSLESS_LEVEL] as const;
export type LocalLevel = (typeof LOCAL_LEVELS)[number];

/**
 * Levels of the cloud PDF service (EXTERNAL-SERVICES.md). `extreme` exists in both: it is local
 * unless the request asks for `mode=cloud`.
 */
export const CLOUD_LEVELS = ['recommended', 'extreme', 'low'] as const;
export type CloudLevel = (typeof CLOUD_LEVELS)[number];

/** Which pipeline compresses: the local tools or the cloud PDF service. */
export type PdfChoice = { mode: 'local'; level: LocalLevel } | { mode: 'cloud'; level: CloudLevel };

/** `plan.pdf` → `plan-<suffix>.pdf` (Romanian suffixes, like the rest of what the user sees). */
function suffixedPdfName(original: string, suffix: string): string {
  const base = original.replace(/\.pdf$/i, '') || 'document';
  return `${base}-${suffix}.pdf`;
}

export const compressedFileName = (original: string) => suffixedPdfName(original, 'comprimat');
export const unlockedFileName = (original: string) => suffixedPdfName(original, 'deblocat');
