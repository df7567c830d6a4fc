/**
 * The API's JSON body parser (CONTRACT.md 5: 25 MB), in place of express.json so that no body
 * holds the event loop (docs/architecture.md "Nothing heavy on the event loop"). A body up to
 * `inlineBytes` (256 KB) is checked and parsed on the loop (well under a millisecond per KB). A
 * larger one is heavy work: it takes a slot of `heavyWork.jsonBody` (per user and in all, 429
 * past them, before its bytes are read when its length is declared), held until the answer is
 * sent, and a worker thread checks its shape, parses it and walks it (api/http/jsonShape.ts).
 * The loop gets back the route's raw fields as UTF-8 JSON text in memory moved from the thread
 * (`RawJson`) and the rest as a small text it parses again (at most MAX_LOOP_NODES values).
 */
import { Worker } from 'node:worker_threads';
import type { Request, RequestHandler, Response } from 'express';
import { AppError, errors } from '../../domain/errors';
import { config } from '../../domain/config';
import type { Release } from '../../domain/concurrency';
import { callerKey, heavyWork } from './rateLimit';
import { checkJsonShape, nulFailure, shapeFailure } from './route';
import { JsonShapeError, WORKER_ROLE, type ParseJob, type ParseResult } from './jsonShape';
import { RawJson, rawFieldsOf } from './rawJson';
import { onClose } from './download';

export interface JsonBodyOptions {
  /** Bytes a body may have (413 past it). */
  limit: number;
  /** Bodies up to this size are parsed on the loop; default config.limits.jsonBody.inlineBytes. */
  inlineBytes?: () => number;
}

const notJson = (problem: string) => errors.badRequest('Corpul cererii nu este JSON valid.', [{ field: '(body)', problem }]);

/** Worker threads kept between bodies (at most the global cap of large bodies in flight). */
const idle: Worker[] = [];
let nextJob = 1;

function spawn(): Worker {
  const worker = new Worker(new URL('./jsonShape.ts', import.meta.url), { workerData: { role: WORKER_ROLE } });
  // An idle parser never keeps a process (a test, a script) alive.
  worker.unref();
  return worker;
}

/** Runs one parse on a worker thread; a crashed thread fails only its own body and is replaced next time. */
export function parseInWorker(body: Buffer, rawFields: readonly string[]): Promise<ParseResult> {
  const worker = idle.pop() ?? spawn();
  const job: ParseJob = { id: nextJob++, body, rawFields };
  // The body's own memory moves to the thread when it is not a slice of a shared pool.
  const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  return new Promise<ParseResult>((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (result: ParseResult) => {
      if (result.id !== job.id) return;
      done();
      if (idle.length < config.limits.jsonBody.global) idle.push(worker);
      else void worker.terminate();
      resolve(result);
    };
    const onError = (err: Error) => {
      done();
      void worker.terminate();
      reject(err);
    };
    const onExit = (code: number) => onError(new Error(`JSON parser thread exited with code ${code}`));
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage(job, own ? [body.buffer as ArrayBuffer] : []);
  });
}

/** Stops reading a refused body: the refusal is answered at once, the rest discarded as it arrives. */
function refuse(req: Request, err: AppError): Promise<never> {
  req.removeAllListeners('data');
  req.resume();
  return Promise.reject(err);
}

/**
 * Reads the body; takes the large-body slot as soon as the body is known to be large. A body of
 * declared length is copied chunk by chunk into memory of its own as it arrives (copying 24 MB
 * at the end took the loop 0.12 s, and the chunks kept until then fed the garbage collector).
 */
function readBody(req: Request, limit: number, inline: number, declared: number, takeSlot: () => void): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const whole = declared > inline && declared <= limit ? Buffer.allocUnsafeSlow(declared) : null;
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (err: AppError) => {
      if (failed) return;
      failed = true;
      refuse(req, err).catch(reject);
    };
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      if (size + chunk.length > limit) return fail(errors.payloadTooLarge());
      if (size + chunk.length > inline) {
        try {
          takeSlot();
        } catch (err) {
          return fail(err as AppError);
        }
      }
      if (whole) {
        // Node's parser holds a body to its Content-Length; this never happens, but must not overflow.
        if (size + chunk.length > whole.length) return fail(notJson('body longer than its Content-Length'));
        chunk.copy(whole, size);
      } else chunks.push(chunk);
      size += chunk.length;
    });
    req.once('end', () => {
      if (!failed) resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks, size));
    });
    req.once('error', (err) => {
      if (failed) return;
      failed = true;
      // A client that left mid-body is a 499 of its own doing, not a failure of ours.
      reject(req.destroyed && !req.complete ? errors.clientClosed() : err);
    });
    // A client gone before the body is read (while its session was looked up, say) sends no
    // `end` and no `error` any more: the read ends here, and its buffer with it.
    const gone = () => {
      if (failed || req.complete) return;
      failed = true;
      reject(errors.clientClosed());
    };
    onClose(req, gone);
  });
}

/** Body-parser's strict mode: a JSON body is an object or an array. */
function firstByte(buf: Buffer): number | undefined {
  for (const c of buf) if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c;
  return undefined;
}

async function parseBody(req: Request, res: Response, opts: JsonBodyOptions): Promise<void> {
  const type = req.headers['content-type'];
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody || !type || !req.is('application/json')) return;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]?.toLowerCase();
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if ((charset && charset !== 'utf-8' && charset !== 'utf8') || encoding !== 'identity') {
    return refuse(req, errors.badRequest('Codificarea cererii nu este acceptată.'));
  }
  const inline = (opts.inlineBytes ?? (() => config.limits.jsonBody.inlineBytes))();
  const declared = Number(length ?? NaN);
  if (declared > opts.limit) return refuse(req, errors.payloadTooLarge());

  let release: Release | undefined;
  const takeSlot = () => {
    if (release) return;
    release = heavyWork.jsonBody.tryAcquire(callerKey(req));
    onClose(res, release);
  };
  if (declared > inline) {
    try {
      takeSlot();
    } catch (err) {
      return refuse(req, err as AppError);
    }
  }
  const buf = await readBody(req, opts.limit, inline, declared, takeSlot);
  const first = firstByte(buf);
  if (first === undefined) return;
  if (first !== 0x7b && first !== 0x5b) throw notJson('a JSON body is an object or an array');

  if (buf.length <= inline) {
    checkJsonShape(buf);
    try {
      req.body = JSON.parse(buf.toString('utf8'));
    } catch (err) {
      throw notJson((err as Error).message);
    }
    return;
  }
  const result = await parseInWorker(buf, rawFieldsOf(req.method, req.originalUrl.split('?')[0]));
  if (!result.ok) throw result.kind === 'shape' ? shapeFailure(new JsonShapeError(result.message, result.details)) : notJson(result.message);
  if (result.nul.length) throw nulFailure(result.nul, 'corp');
  const body = JSON.parse(result.rest) as unknown;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [field, utf8] of Object.entries(result.raw)) {
      (body as Record<string, unknown>)[field] = new RawJson(Buffer.from(utf8.buffer, utf8.byteOffset, utf8.byteLength));
    }
  }
  req.body = body;
}

/** The /api JSON parser: bodies that are not JSON pass untouched (multipart uploads stream later). */
export function jsonBody(opts: JsonBodyOptions): RequestHandler {
  return (req, res, next) => {
    parseBody(req, res, opts).then(() => next(), next);
  };
}
