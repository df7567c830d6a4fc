/**
 * Reading a page action's form body within a byte cap. Express parses bodies only for /api (25 MB)
 * and /auth (64 KB, api/app.ts); a Remix action gets the raw request, and `request.formData()`
 * reads and parses whatever arrives, of any size, and throws on a body that is not a form (a 500).
 * The pages' actions post small intent forms (a hidden field or two), so this reads a few KB at
 * most and answers a thrown Response the route's ErrorBoundary shows: 413 past the cap, 400 for a
 * body that is not a form.
 */
import { errors, type AppError } from '../../../domain/errors';

/** An intent form is a few dozen bytes; this leaves room for a dozen short fields. */
export const SMALL_FORM_MAX_BYTES = 4 * 1024;

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

const refusal = (err: AppError) => new Response(err.message, { status: err.status });

/**
 * Reads what is left of a refused body and throws it away, off the answer's path. Cancelling the
 * stream instead would destroy the connection (the Express adapter's body stream) before the
 * refusal reached the client; the API does the same for a refused body (api/http/jsonBody.ts).
 */
export function discardBody(request: Request): void {
  if (!request.body || request.bodyUsed) return;
  const reader = request.body.getReader();
  const drain = async (): Promise<void> => {
    while (!(await reader.read()).done);
  };
  // The client going away mid-body ends the drain; nobody waits for it.
  drain().catch(() => undefined);
}

/** The body's bytes, or null once it passes `maxBytes` (the rest is discarded). */
async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.releaseLock();
      discardBody(request);
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The action's form, read within `maxBytes`. Throws a Response: 413 past the cap (a declared
 * Content-Length past it is refused before any byte is read), 400 when the body is not a
 * urlencoded or multipart form or does not parse as one.
 */
export async function readSmallForm(request: Request, maxBytes = SMALL_FORM_MAX_BYTES): Promise<FormData> {
  const type = request.headers.get('content-type') ?? '';
  const notForm = refusal(errors.badRequest('Cererea nu conține un formular valid.'));
  if (!FORM_TYPES.includes(type.split(';')[0].trim().toLowerCase())) {
    discardBody(request);
    throw notForm;
  }
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    discardBody(request);
    throw refusal(errors.payloadTooLarge());
  }
  const bytes = await readCapped(request, maxBytes);
  if (!bytes) throw refusal(errors.payloadTooLarge());
  try {
    // The bytes are parsed as the request's own formData() would, type and boundary included.
    return await new Response(bytes, { headers: { 'content-type': type } }).formData();
  } catch {
    throw notForm;
  }
}
