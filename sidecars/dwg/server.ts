/**
 * The DWG → DXF conversion sidecar (docs/architecture.md "DWG sidecar"): LibreDWG compiled to
 * WebAssembly (@mlightcad/libredwg-web, GPL-3.0) behind two routes, in a process of its own so a
 * crash or the GPL stays outside the main service, which only talks HTTP to it.
 *
 *   GET  /health   → {status: 'ok', engine, engineVersion, running, queued}
 *   POST /convert  body: the DWG (any content type) or multipart field `file`
 *                  → 200 the DXF, headers X-Dxf-Entities, X-Dxf-Entity-Types, X-Dwg-Version,
 *                    X-Dwg-Warnings; 422 `not_dwg` / `dwg_unreadable`; 504 `conversion_timeout`;
 *                    413 over the upload limit.
 *
 * Each conversion runs in a child process (convert.ts), killed after the timeout or when the
 * caller drops the connection; at most `concurrency` run at once, at most `queue` wait in order,
 * the rest are answered 429 `rate_limited`.
 */
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response } from 'express';
import { config } from '../../domain/config';
import { AppError, errors } from '../../domain/errors';
import { childLogger } from '../../domain/log';
import { formatEntityTypes } from '../../domain/dwg/rules';
import { countDxfEntities, dwgVersionOfFile } from '../../domain/dwg/service';
import { withUpload } from '../../api/http/upload';
import { errorMapper } from '../../api/http/errorMapper';
import { WorkSlots } from '../../domain/concurrency';
import { ConversionError, convertDwgFile } from './convert';

const log = childLogger('dwg-sidecar');
const ENGINE = '@mlightcad/libredwg-web';
// The package's exports map hides package.json; it sits one level above the main entry (dist/).
const ENGINE_VERSION = (
  JSON.parse(readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve(ENGINE)), '..', 'package.json'), 'utf8')) as { version: string }
).version;

export interface DwgSidecarOptions {
  port?: number;
  timeoutMs?: number;
  concurrency?: number;
  /** Conversions that may wait for a slot; past them 429. */
  queue?: number;
}

/**
 * First come, first served slots for conversions (the one WorkSlots limiter): `concurrency` run,
 * at most `queue` wait (each at most the conversion deadline), the rest get 429 at once. The
 * sidecar's only caller is the API, so every conversion counts under one key.
 */
function conversionSlots(concurrency: number, queue: number, waitMs: number): WorkSlots {
  const busy = 'Prea multe conversii DWG în așteptare; reîncercați în câteva secunde.';
  return new WorkSlots({
    global: () => concurrency,
    perUser: () => concurrency + queue,
    retryAfterSeconds: 10,
    messages: { user: busy, global: busy },
    queue: { max: queue, waitMs },
  });
}

export interface DwgSidecar {
  url: string;
  close(): Promise<void>;
}

/** A raw (non-multipart) body streamed to `target`, refused past the upload limit. */
async function receiveRaw(req: Request, target: string): Promise<void> {
  const max = config.uploads.maxBytes;
  const declared = Number(req.headers['content-length'] ?? NaN);
  const tooLarge = () => new AppError(413, 'payload_too_large', 'Fișierul depășește dimensiunea maximă permisă.', { headers: { Connection: 'close' } });
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      cb(size > max ? tooLarge() : null, chunk);
    },
  });
  await pipeline(req, meter, createWriteStream(target));
}

/** Gives `fn` the path of the received DWG; everything received is removed afterwards. */
async function withDwg(req: Request, fn: (file: string, dir: string) => Promise<void>): Promise<void> {
  if (/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
    await withUpload(req, { fileFields: ['file'] }, async (up) => {
      const file = up.files[0];
      if (!file) throw errors.badRequest('Lipsește fișierul DWG (câmpul „file”).', [{ field: 'file', problem: 'required' }]);
      await fn(file.path, path.dirname(file.path));
    });
    return;
  }
  await fs.mkdir(config.uploads.tmpDir, { recursive: true });
  const dir = await fs.mkdtemp(path.join(config.uploads.tmpDir, 'dwg-'));
  try {
    const file = path.join(dir, 'in.dwg');
    await receiveRaw(req, file);
    await fn(file, dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export function dwgSidecarApp(opts: DwgSidecarOptions = {}): express.Express {
  const timeoutMs = opts.timeoutMs ?? config.dwg.timeoutMs;
  const queue = conversionSlots(opts.concurrency ?? config.dwg.concurrency, opts.queue ?? config.dwg.queue, timeoutMs);
  const app = express();
  app.disable('x-powered-by');

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', engine: ENGINE, engineVersion: ENGINE_VERSION, running: queue.active, queued: queue.queued });
  });

  app.post('/convert', (req: Request, res: Response, next) => {
    const t0 = Date.now();
    // The API gave up or its client left: the conversion stops (out of the queue, or killed).
    const cancel = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) cancel.abort();
    });
    withDwg(req, async (file, dir) => {
      const version = await dwgVersionOfFile(file);
      if (!version) {
        throw new AppError(422, 'not_dwg', 'Fișierul nu este un desen DWG.');
      }
      const out = path.join(dir, 'out.dxf');
      let warnings: number;
      try {
        ({ warnings } = await queue.run('api', () => convertDwgFile(file, out, { timeoutMs, signal: cancel.signal }), cancel.signal));
      } catch (err) {
        if (cancel.signal.aborted) {
          log.info({ version, ms: Date.now() - t0 }, 'conversion cancelled: the caller went away');
          return;
        }
        if (!(err instanceof ConversionError)) throw err;
        log.warn({ kind: err.kind, code: err.code, version, reason: err.message }, 'conversion failed');
        if (err.kind === 'timeout') {
          throw new AppError(504, 'conversion_timeout', `Conversia a depășit ${(timeoutMs / 1000).toLocaleString('ro-RO')} s și a fost oprită.`);
        }
        throw new AppError(422, 'dwg_unreadable', 'Desenul DWG este deteriorat sau nu poate fi citit.', {
          details: { reason: err.kind, libredwgError: err.code },
        });
      }
      const counts = await countDxfEntities(out);
      const { size } = await fs.stat(out);
      log.info({ version, entities: counts.total, warnings, bytes: size, ms: Date.now() - t0 }, 'converted');
      res.status(200).set({
        'Content-Type': 'application/dxf',
        'Content-Length': String(size),
        'X-Dxf-Entities': String(counts.total),
        'X-Dxf-Entity-Types': formatEntityTypes(counts.byType),
        'X-Dwg-Version': version,
        'X-Dwg-Warnings': String(warnings),
      });
      await pipeline(createReadStream(out), res);
    }).catch(next);
  });

  app.use((_req, _res, next) => next(errors.notFound()));
  app.use(errorMapper);
  return app;
}

/** Listens on the loopback interface (DWG_CONVERTER_HOST): the sidecar is for our services only. */
export async function startDwgSidecar(opts: DwgSidecarOptions = {}): Promise<DwgSidecar> {
  const app = dwgSidecarApp(opts);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(opts.port ?? config.dwg.port, config.dwg.host, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.dwg.host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
