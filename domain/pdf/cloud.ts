/**
 * Client of the cloud PDF service (EXTERNAL-SERVICES.md "PDF service"; the simulator in
 * simulators/pdfService/ unless PDF_SERVICE_URL is set): `POST /compress` and `POST /unlock`,
 * multipart `file` plus fields. The upload is streamed from disk into the request and the answer
 * from the socket to disk, so a 500 MB file never sits in memory.
 *
 * Both calls are pure transforms of the upload (no state on the service), so a 5xx, a timeout or
 * a dropped connection is tried again (PDF_SERVICE_RETRY_ATTEMPTS) before the caller gets a 502
 * or 503, through the outside-call base (domain/outside/service.ts: its transport with the service's
 * shared rate limit and the deadline, the retry, the error bodies). The password goes only into the request body: it is never put in
 * a URL, an error or a log line.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { config } from '../config';
import type { Db } from '../db/pool';
import { AppError, errors } from '../errors';
import { childLogger } from '../log';
import { callerGone, outsideCall, outsideError, transportFailure, send, type OutsideTarget } from '../outside/service';
import { encryptedPdf, hasPdfHeader, notAPdf, unreadablePdf } from './compress';

const log = childLogger('pdf-service');

export type PdfServiceOp = 'compress' | 'unlock';

export interface PdfServiceFile {
  path: string;
  /** Sent as the multipart file name (the service may echo it). */
  fileName: string;
}

export const wrongPassword = () =>
  new AppError(403, 'wrong_password', 'Parola introdusă nu este corectă: PDF-ul nu a putut fi deblocat.', {
    hint: 'Verificați parola (se ține cont de literele mari și mici) și încercați din nou.',
  });

/** The caller left: the same answer as an upload cut off (nobody reads it; it is not a 5xx). */
const clientLeft = () => errors.badRequest('Cererea a fost întreruptă.');

/** A failure worth another try (the service or the network, not the request). */
class Transient extends Error {
  constructor(
    readonly unavailable: boolean,
    message: string,
  ) {
    super(message);
  }
}

/** Header-safe multipart parameter (quotes, CR and LF escaped as browsers do). */
const quoted = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

interface Answer {
  status: number;
  /** First bytes of an error body (JSON `{error, message}` from the service). */
  errorCode?: string;
}

/** The multipart body: the fields, then the file read from disk as it is sent. */
async function* multipart(head: Buffer, path: string, tail: Buffer): AsyncGenerator<Buffer> {
  yield head;
  // Larger reads than the default 64 KB: fewer, bigger writes to the socket.
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) yield chunk as Buffer;
  yield tail;
}

/** One call: streams the multipart body in and, on 200, the answer out to `outPath`. */
async function callOnce(
  target: OutsideTarget,
  op: PdfServiceOp,
  file: PdfServiceFile,
  fields: Record<string, string>,
  outPath: string,
  signal?: AbortSignal,
): Promise<Answer> {
  const boundary = `----pdfservice${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(k)}"\r\n\r\n${v}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(file.fileName)}"\r\nContent-Type: application/pdf\r\n\r\n`,
    'utf8',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  const { size } = await fs.stat(file.path);

  if (callerGone(signal)) throw clientLeft();
  // A thrown exchange: the caller left, the deadline passed, or the service is not reachable
  // right now (refused, reset, DNS).
  const lost = (err: unknown, unavailable: boolean, what: string) => {
    const failure = transportFailure(err, signal);
    if (failure === 'aborted') return clientLeft();
    if (failure === 'timeout') return new Transient(true, `no answer within ${config.pdfService.timeoutMs} ms`);
    return new Transient(unavailable, `${what}${(err as Error).message}`);
  };
  let res: Awaited<ReturnType<typeof send>>;
  try {
    res = await send(target, {
      url: `${config.pdfService.baseUrl}/${op}`,
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
        accept: 'application/pdf, application/json',
        ...(config.pdfService.apiKey ? { authorization: `Bearer ${config.pdfService.apiKey}` } : {}),
      },
      body: Readable.from(multipart(head, file.path, tail), { objectMode: false }),
      timeoutMs: config.pdfService.timeoutMs,
      signal,
    });
  } catch (err) {
    throw lost(err, true, '');
  }
  if (res.status === 200) {
    try {
      await pipeline(res.stream(), createWriteStream(outPath));
    } catch (err) {
      throw lost(err, false, 'answer cut off: ');
    }
    return { status: 200 };
  }
  // An error body is read to its end, but only its first bytes are kept (JSON `{error, message}`).
  let body = '';
  try {
    for await (const chunk of res.stream().setEncoding('utf8')) if (body.length < 16 * 1024) body += chunk as string;
  } catch (err) {
    throw lost(err, false, '');
  }
  let errorCode: string | undefined;
  try {
    errorCode = (JSON.parse(body) as { error?: string }).error;
  } catch {
    errorCode = undefined;
  }
  return { status: res.status, errorCode };
}

/** Maps a non-200 answer of the service to what our caller should hear. */
function failureOf(op: PdfServiceOp, a: Answer): Error {
  if (a.status === 403 && op === 'unlock') return wrongPassword();
  if (a.status === 400 && a.errorCode === 'not_pdf') return notAPdf();
  if (a.status === 422 && a.errorCode === 'encrypted') return encryptedPdf();
  if (a.status === 422) return unreadablePdf();
  if (a.status === 503 || a.status === 429) return new Transient(true, `the service answered ${a.status}`);
  if (a.status >= 500) return new Transient(false, `the service answered ${a.status}`);
  // 401, 404, another 4xx: our request or our configuration is wrong, not the user's file.
  log.error({ op, status: a.status, errorCode: a.errorCode }, 'PDF service refused the request');
  return outsideError('pdfService', 'status');
}

/**
 * Sends `file` to the service's `op` with `fields` and writes the PDF it answers to `outPath`;
 * answers the size written. Throws AppErrors: 403 wrong password, 400/422 for the file, 502
 * service error, 503 service unavailable (after the retries). `db`: the caller's store's pool,
 * whose shared schedule paces the service.
 */
export async function callPdfService(
  db: Db,
  op: PdfServiceOp,
  file: PdfServiceFile,
  fields: Record<string, string>,
  outPath: string,
  signal?: AbortSignal,
): Promise<number> {
  const attempts = 1 + Math.max(0, config.pdfService.retryAttempts);
  try {
    return await outsideCall(
      {
        service: 'pdfService',
        idempotent: true,
        retry: { retries: Math.max(0, config.pdfService.retryAttempts), baseDelayMs: config.pdfService.retryBaseDelayMs },
        transient: (err) => err instanceof Transient,
        signal,
      },
      async (attempt) => {
        try {
          const answer = await callOnce({ service: 'pdfService', db }, op, file, fields, outPath, signal);
          if (answer.status !== 200) throw failureOf(op, answer);
          if (!(await hasPdfHeader(outPath))) throw new Transient(false, 'the service answered something that is not a PDF');
          return (await fs.stat(outPath)).size;
        } catch (err) {
          // The reason only: never the fields (the password travels there).
          if (err instanceof Transient) log.warn({ op, attempt, of: attempts, reason: err.message }, 'PDF service call failed');
          throw err;
        }
      },
    );
  } catch (err) {
    if (callerGone(signal)) throw clientLeft();
    if (err instanceof Transient) throw outsideError('pdfService', err.unavailable ? 'unreachable' : 'status');
    throw err;
  }
}
