import { stripDiacritics } from '../text/fold';

/**
 * The one `Content-Disposition: attachment` value (RFC 6266): an ASCII `filename` fallback
 * (diacritics folded, quotes and other bytes replaced) and the exact UTF-8 name in `filename*`
 * (RFC 8187). Used for HTTP downloads (through api/http/contentDisposition.ts) and for the
 * headers stored with S3 objects that are later downloaded through a presigned URL.
 */
export function contentDisposition(fileName: string): string {
  const ascii = stripDiacritics(fileName).replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
