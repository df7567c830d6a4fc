/**
 * Downloads set `Content-Disposition` with this builder (RFC 6266, `filename*` for the exact
 * Romanian name); the implementation sits in domain/storage because S3 objects carry it too.
 */
export { contentDisposition } from '../../domain/storage/rules';
