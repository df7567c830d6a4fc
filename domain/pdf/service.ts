/**
 * Client of the cloud PDF service (EXTERNAL-SERVICES.md "PDF service"; the simulator in
 * simulators/pdfService/ unless PDF_SERVICE_URL is set): `POST /compress` and `POST /unlock`,
 * multipart `file` plus fields. The upload is streamed from disk into the request and the answer
 * from the socket to disk, so a 500 MB file never sits in memory.
 *
 * Both calls are pure transforms of the upload (no state on the service), so a 5xx, a timeout or
 * a dropped connection is tried again (PDF_SERVICE_RETRY_ATTEMPTS) before the caller gets a 502
 * or 503, through the outside-call base (domain/outside/call.ts: the service's shared rate limit,
 * the retry, the error bodies). The password goes only into the request body: it is never put in
 * a URL, an error or a log line.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import { config } from '../config';
import type { Db } from '../db/pool';
import { AppError, errors } from '../errors';
import { childLogger } from '../log';
import { callerGone, outsideCall, outsideError, outsideSignal } from '../outside/call';
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

/** One call: streams the multipart body in and, on 200, the answer out to `outPath`. */
async function callOnce(op: PdfServiceOp, file: PdfServiceFile, fields: Record<string, string>, outPath: string, signal?: AbortSignal): Promise<Answer> {
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
  const url = new URL(`${config.pdfService.baseUrl}/${op}`);
  const client = url.protocol === 'https:' ? https : http;

  if (callerGone(signal)) throw clientLeft();
  // The call's deadline, the caller leaving: whichever comes first ends the exchange.
  const stop = outsideSignal(config.pdfService.timeoutMs, signal);
  return new Promise<Answer>((resolve, reject) => {
    let settled = false;
    const done = (err: Error | null, answer?: Answer) => {
      if (settled) return;
      settled = true;
      stop.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(answer!);
    };
    const req = client.request(url, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
        accept: 'application/pdf, application/json',
        ...(config.pdfService.apiKey ? { authorization: `Bearer ${config.pdfService.apiKey}` } : {}),
      },
    });
    const onAbort = () => req.destroy(callerGone(signal) ? clientLeft() : new Transient(true, `no answer within ${config.pdfService.timeoutMs} ms`));
    stop.addEventListener('abort', onAbort, { once: true });

    req.once('error', (err) => {
      if (err instanceof Transient || stop.aborted) return done(err);
      // Refused, reset, DNS: the service is not reachable right now.
      done(new Transient(true, err.message));
    });
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status === 200) {
        pipeline(res, createWriteStream(outPath)).then(
          () => done(null, { status }),
          (err: Error) => done(callerGone(signal) ? clientLeft() : new Transient(false, `answer cut off: ${err.message}`)),
        );
        return;
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (body.length < 16 * 1024) body += c;
      });
      res.once('error', (err) => done(new Transient(false, err.message)));
      res.once('end', () => {
        let errorCode: string | undefined;
        try {
          errorCode = (JSON.parse(body) as { error?: string }).error;
        } catch {
          errorCode = undefined;
        }
        done(null, { status, errorCode });
      });
    });

    (async () => {
      req.write(head);
      await pipeline(createReadStream(file.path), req, { end: false });
      req.end(tail);
    })().catch((err: Error) => req.destroy(err));
  });
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
        db,
        idempotent: true,
        retry: { retries: Math.max(0, config.pdfService.retryAttempts), baseDelayMs: config.pdfService.retryBaseDelayMs },
        transient: (err) => err instanceof Transient,
        signal,
      },
      async (attempt) => {
        try {
          const answer = await callOnce(op, file, fields, outPath, signal);
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
