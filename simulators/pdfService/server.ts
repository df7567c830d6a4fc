/**
 * The cloud PDF service simulator (EXTERNAL-SERVICES.md "PDF service"): unlock and the cloud
 * compression levels behind an HTTP API, doing the real work locally with qpdf and Ghostscript so
 * the service's cloud path is exercised for real. Paths in simulators/pdfService/README.md.
 *
 *   POST /unlock    multipart `file`, `password`       the decrypted PDF; 403 wrong password
 *   POST /compress  multipart `file`, `level`           the compressed PDF (recommended | extreme | low)
 *   /__sim/faults, /__sim/reset, /__sim/requests (simulators/shared/control.ts), GET /__sim/truth
 *
 * Request counts: `received:POST /compress` for every call (also those a fault answered),
 * `route:POST /compress` for calls that reached the handler, `compress:level:<level>`, and the
 * outcome `compress:ok` / `compress:<error code>` (the same for unlock, e.g. `unlock:wrong_password`).
 *
 * Like the real services people complain about, it answers whatever Ghostscript produced, even
 * when that is larger than the upload: the never-larger rule is the product's job, not its. It
 * receives uploads (./upload.ts) and compresses (one Ghostscript pass of its own) with its own
 * code, never the product's (domain/pdf, api/http/upload.ts), so a fault in those is not hidden
 * by a service that shares it.
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response } from 'express';
import { listenSimulator, simulatorApp } from '../shared/app';
import { SimControl } from '../shared/control';
import { simSettings } from '../shared/settings';
import { ServiceRefusal, withServiceUpload } from './upload';

/**
 * The service's own settings per level: image resolution (dpi) and JPEG quantisation (higher =
 * coarser); each level lowers both further.
 */
export const SIM_LEVELS: Record<string, { dpi: number; qFactor: number }> = {
  low: { dpi: 200, qFactor: 0.4 },
  recommended: { dpi: 120, qFactor: 0.9 },
  extreme: { dpi: 72, qFactor: 1.5 },
};

export interface PdfServiceSimOptions {
  port?: number;
  host?: string;
  /** Bearer key the simulator requires; '' accepts any caller. */
  apiKey?: string;
  /** Where uploads are received (removed after each call). */
  tmpDir?: string;
}

export interface PdfServiceSimulator {
  url: string;
  close(): Promise<void>;
}

/** What the simulator did, for /__sim/truth (never the password). */
interface Processed {
  op: 'unlock' | 'compress';
  level?: string;
  fileName: string;
  inputBytes: number;
  outputBytes?: number;
  status: number;
  at: string;
}

/** One qpdf or Ghostscript run; `stdin` is written to it (qpdf's password, never on the command line). */
function tool(bin: string, args: string[], stdin = ''): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['pipe', 'ignore', 'pipe'], timeout: simSettings.pdfService.toolTimeoutMs });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += c.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stderr }));
    // A tool that exits before reading its input (qpdf --is-encrypted on an unreadable file)
    // closes the pipe: the write then fails with EPIPE, which the exit code already answers. Left
    // unhandled, that error ended the simulator in the middle of a test run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

const qpdfWithPassword = (args: string[], password: string) => tool(simSettings.pdfService.qpdf, ['--password-file=-', ...args], `${password}\n`);

/** `%PDF-` within the first kilobyte, where readers accept it. */
async function looksLikePdf(file: string): Promise<boolean> {
  for await (const chunk of createReadStream(file, { start: 0, end: 1023 })) if ((chunk as Buffer).includes('%PDF-')) return true;
  return false;
}

/** qpdf --is-encrypted: 0 encrypted, 2 not; anything else it could not read. */
async function encryption(file: string): Promise<'encrypted' | 'plain' | 'unreadable'> {
  const { code } = await tool(simSettings.pdfService.qpdf, ['--is-encrypted', file]);
  return code === 0 ? 'encrypted' : code === 2 ? 'plain' : 'unreadable';
}

/** The service's compression: one Ghostscript pass that downsamples and re-encodes every image. */
async function compressAt({ dpi, qFactor }: (typeof SIM_LEVELS)[string], input: string, output: string): Promise<void> {
  const dct = `<< /QFactor ${qFactor} /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2] >>`;
  const r = await tool(simSettings.pdfService.gs, [
    '-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', '-dCompatibilityLevel=1.6',
    '-dPassThroughJPEGImages=false',
    '-dDownsampleColorImages=true', '-dDownsampleGrayImages=true',
    `-dColorImageResolution=${dpi}`, `-dGrayImageResolution=${dpi}`,
    '-dAutoFilterColorImages=false', '-dAutoFilterGrayImages=false',
    '-dColorImageFilter=/DCTEncode', '-dGrayImageFilter=/DCTEncode',
    `-sOutputFile=${output}`,
    '-c', `<< /ColorACSImageDict ${dct} /GrayACSImageDict ${dct} /ColorImageDict ${dct} /GrayImageDict ${dct} >> setdistillerparams`,
    '-f', input,
  ]);
  if (r.code !== 0) throw new ServiceRefusal(422, 'unreadable', 'The PDF could not be read');
}

export function createPdfServiceApp(opts: PdfServiceSimOptions = {}) {
  const apiKey = opts.apiKey ?? simSettings.pdfService.apiKey;
  let processed: Processed[] = [];
  const control = new SimControl('Serviciul PDF');
  const app = simulatorApp(control);
  // Counted in front of the fault injection, so a test sees every try of a retried call,
  // including those answered by `errorRate` or `maintenance`.
  const outer = express();
  outer.disable('x-powered-by');
  outer.use((req, _res, next) => {
    if (!req.path.startsWith('/__sim')) control.hit(`received:${req.method} ${req.path}`);
    next();
  });
  outer.use(app);

  app.use(
    '/__sim',
    control.router({
      onReset: () => {
        processed = [];
      },
      extend: (r) => {
        r.get('/truth', (_req, res) => {
          res.json({ processed });
        });
      },
    }),
  );

  const authorised = (req: Request, res: Response, next: NextFunction) => {
    if (!apiKey) return next();
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === apiKey || req.headers['x-api-key'] === apiKey) return next();
    res.status(401).json({ error: 'unauthorized', message: 'Missing or invalid API key' });
  };

  const record = (p: Omit<Processed, 'at'>) => {
    processed.push({ ...p, at: new Date().toISOString() });
    if (processed.length > 1000) processed = processed.slice(-1000);
  };

  /** Receives the upload, checks it is a PDF, runs `work`, answers its file; errors become JSON. */
  const handle = (op: Processed['op'], work: (file: string, fields: Record<string, string>, dir: string, rec: Omit<Processed, 'at'>) => Promise<string>) =>
    async (req: Request, res: Response) => {
      let rec: Omit<Processed, 'at'> = { op, fileName: '', inputBytes: 0, status: 0 };
      try {
        await withServiceUpload(req, opts.tmpDir ?? '', async (up) => {
          const file = up.file;
          if (!file) throw new ServiceRefusal(400, 'missing_file', 'Field "file" is required');
          rec = { ...rec, fileName: file.fileName, inputBytes: file.size };
          if (!(await looksLikePdf(file.path))) throw new ServiceRefusal(400, 'not_pdf', 'The file is not a PDF');
          const out = await work(file.path, up.fields, up.dir, rec);
          const size = (await fs.stat(out)).size;
          rec.outputBytes = size;
          rec.status = 200;
          control.hit(`${op}:ok`);
          res.status(200).set({
            'Content-Type': 'application/pdf',
            'Content-Length': String(size),
            'Content-Disposition': `attachment; filename="${op === 'unlock' ? 'unlocked' : 'compressed'}.pdf"`,
            'X-Original-Size': String(file.size),
            'X-Compressed-Size': String(size),
          });
          await pipeline(createReadStream(out), res);
        });
      } catch (err) {
        const e = err instanceof ServiceRefusal ? err : new ServiceRefusal(500, 'internal_error', (err as Error).message);
        rec.status = e.status;
        control.hit(`${op}:${e.code}`);
        if (!res.headersSent) res.status(e.status).json({ error: e.code, message: e.message });
        else res.destroy();
      } finally {
        if (rec.status) record(rec);
      }
    };

  app.post(
    '/unlock',
    authorised,
    handle('unlock', async (file, fields, dir) => {
      const password = fields.password ?? '';
      const state = await encryption(file);
      if (state === 'unreadable') throw new ServiceRefusal(422, 'unreadable', 'The PDF could not be read');
      const out = path.join(dir, 'unlocked.pdf');
      if (state === 'plain') {
        // Nothing to remove: a copy through qpdf, as the real service answers a normalised file.
        const r = await qpdfWithPassword([file, out], '');
        if (r.code !== 0 && r.code !== 3) throw new ServiceRefusal(422, 'unreadable', 'The PDF could not be read');
        return out;
      }
      const r = await qpdfWithPassword(['--decrypt', file, out], password);
      if (r.code === 0 || r.code === 3) return out;
      if (/invalid password/i.test(r.stderr)) throw new ServiceRefusal(403, 'wrong_password', 'Invalid password');
      throw new ServiceRefusal(422, 'unreadable', 'The PDF could not be decrypted');
    }),
  );

  app.post(
    '/compress',
    authorised,
    handle('compress', async (file, fields, dir, rec) => {
      const level = (fields.level ?? 'recommended').trim().toLowerCase();
      rec.level = level;
      const settings = SIM_LEVELS[level];
      if (!settings) throw new ServiceRefusal(400, 'invalid_level', `Unknown level "${level}" (recommended, extreme, low)`);
      control.hit(`compress:level:${level}`);
      const state = await encryption(file);
      if (state === 'encrypted') throw new ServiceRefusal(422, 'encrypted', 'The PDF is password-protected');
      if (state === 'unreadable') throw new ServiceRefusal(422, 'unreadable', 'The PDF could not be read');
      const out = path.join(dir, `compressed-${level}.pdf`);
      await compressAt(settings, file, out);
      return out;
    }),
  );

  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found', message: 'No such endpoint' });
  });

  return { app: outer, control };
}

export async function startPdfServiceSimulator(opts: PdfServiceSimOptions = {}): Promise<PdfServiceSimulator> {
  const { app } = createPdfServiceApp(opts);
  return listenSimulator(app, opts.port ?? simSettings.pdfService.port, opts.host);
}
