/**
 * PDF compression end to end: the real app (createApp), a real session, real Ghostscript and qpdf
 * on files generated here: a scanned-style page (a raster of several MB), a text PDF, an encrypted
 * PDF (qpdf --encrypt) and a file that is not a PDF.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApp } from '../../api/app';
import { configurePdfUploads, pdfUploadOptions } from '../../api/routes/pdfTools';
import { closePool } from '../../domain/db/pool';
import { createTestSessionRecord, type TestSession } from '../helpers/session';

const run = promisify(execFile);

let server: http.Server;
let base: string;
let work: string;
let uploads: string;
let dan: TestSession;
const files = { scan: '', text: '', encrypted: '', notPdf: '' };
const savedOptions = { ...pdfUploadOptions };

/** A scanned-style A4 page: a 1400 x 1900 RGB raster (paper grain over a gradient), Flate-stored. */
const SCAN_PS = `%!PS
/w 1400 def /h 1900 def /seed 12345 def
/rnd { seed 1103515245 mul 12345 add 2147483647 and /seed exch def seed } def
<< /PageSize [595 842] >> setpagedevice
gsave 20 20 translate 555 800 scale
/str w 3 mul string def /row 0 def
w h 8 [w 0 0 h neg 0 h]
{ 0 1 w 3 mul 1 sub { str exch rnd -16 bitshift 127 and row 16 idiv add 100 add 255 min put } for /row row 1 add def str } false 3 colorimage
grestore
showpage
`;

function textPs(): string {
  const lines: string[] = [];
  for (let page = 0; page < 3; page++) {
    lines.push('/Times-Roman findfont 11 scalefont setfont');
    for (let i = 0; i < 60; i++) lines.push(`60 ${780 - i * 12} moveto (Memoriu tehnic, pagina ${page + 1}, rândul ${i + 1}: parcela 1234, CF 56789, suprafata 500 mp.) show`);
    lines.push('showpage');
  }
  return `%!PS\n${lines.join('\n')}\n`;
}

async function post(p: string, file: string | null, fields: Record<string, string> = {}, opts: { name?: string; who?: TestSession | null } = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([await fs.readFile(file)], { type: 'application/pdf' }), opts.name ?? path.basename(file));
  const who = opts.who === undefined ? dan : opts.who;
  const res = await fetch(`${base}${p}`, { method: 'POST', body: form, headers: who ? { cookie: who.cookie } : {} });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) };
}

/** The helper removes the upload directory right after the last byte is sent: wait for it. */
async function uploadsLeft(): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const left = await fs.readdir(uploads);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
  return fs.readdir(uploads);
}

async function pageCount(buf: Buffer): Promise<number> {
  const f = path.join(work, `check-${Math.random().toString(36).slice(2)}.pdf`);
  await fs.writeFile(f, buf);
  await run('qpdf', ['--check', f]);
  const { stdout } = await run('qpdf', ['--show-npages', f]);
  return Number(stdout.trim());
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'pdf-tools-'));
  uploads = path.join(work, 'uploads');
  await fs.mkdir(uploads);
  configurePdfUploads({ tmpDir: uploads });
  await fs.writeFile(path.join(work, 'scan.ps'), SCAN_PS);
  await fs.writeFile(path.join(work, 'text.ps'), textPs());
  files.scan = path.join(work, 'scan.pdf');
  files.text = path.join(work, 'text.pdf');
  files.encrypted = path.join(work, 'encrypted.pdf');
  files.notPdf = path.join(work, 'notes.pdf');
  // The raster is stored losslessly (Flate), as a scanner's PDF export often does.
  const gsBase = ['-q', '-dNOPAUSE', '-dBATCH', '-sDEVICE=pdfwrite'];
  await run('gs', [...gsBase, '-dAutoFilterColorImages=false', '-dColorImageFilter=/FlateEncode', '-dDownsampleColorImages=false', `-sOutputFile=${files.scan}`, path.join(work, 'scan.ps')]);
  await run('gs', [...gsBase, `-sOutputFile=${files.text}`, path.join(work, 'text.ps')]);
  await run('qpdf', ['--encrypt', 'parola-utilizator', 'parola-proprietar', '256', '--', files.text, files.encrypted]);
  await fs.writeFile(files.notPdf, 'Acesta nu este un PDF, doar un fișier text cu extensia .pdf.\n');

  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'B' });
  server = http.createServer(createApp());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  delete pdfUploadOptions.tmpDir;
  configurePdfUploads(savedOptions);
  await dan?.end();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await closePool();
  await fs.rm(work, { recursive: true, force: true });
});

describe('POST /api/compress-pdf', () => {
  test('the generated scan is a several-MB raster page', async () => {
    const size = (await fs.stat(files.scan)).size;
    expect(size).toBeGreaterThan(2 * 1024 * 1024);
  });

  test('each level answers a valid, smaller PDF with both sizes, and the levels shrink in order', async () => {
    const original = (await fs.stat(files.scan)).size;
    const sizes: Record<string, number> = {};
    for (const level of ['balanced', 'high', 'extreme']) {
      const r = await post('/api/compress-pdf', files.scan, { level });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/pdf');
      expect(Number(r.headers.get('x-original-size'))).toBe(original);
      expect(Number(r.headers.get('x-compressed-size'))).toBe(r.body.length);
      expect(r.body.length).toBeLessThan(original);
      expect(await pageCount(r.body)).toBe(1);
      sizes[level] = r.body.length;
      expect(await uploadsLeft()).toEqual([]);
    }
    expect(sizes.high).toBeLessThan(sizes.balanced);
    expect(sizes.extreme).toBeLessThan(sizes.high);
  }, 120_000);

  test('the extreme route gives the extreme level', async () => {
    const viaLevel = await post('/api/compress-pdf', files.scan, { level: 'extreme' });
    const viaRoute = await post('/api/compress-pdf/extreme', files.scan);
    expect(viaRoute.status).toBe(200);
    expect(viaRoute.headers.get('x-compression-level')).toBe('extreme');
    expect(Number(viaRoute.headers.get('x-compressed-size'))).toBe(viaRoute.body.length);
    expect(viaRoute.body.length).toBe(viaLevel.body.length);
    expect(await uploadsLeft()).toEqual([]);
  }, 120_000);

  test('a text PDF keeps its three pages and is never larger than the upload', async () => {
    const original = (await fs.stat(files.text)).size;
    for (const level of ['balanced', 'extreme']) {
      const r = await post('/api/compress-pdf', files.text, { level });
      expect(r.status).toBe(200);
      expect(Number(r.headers.get('x-original-size'))).toBe(original);
      expect(r.body.length).toBeLessThanOrEqual(original);
      expect(await pageCount(r.body)).toBe(3);
    }
  }, 60_000);

  test('when nothing is gained the original comes back unchanged', async () => {
    // An already extreme-compressed file cannot be shrunk by the balanced level.
    const once = await post('/api/compress-pdf/extreme', files.scan);
    const small = path.join(work, 'already-small.pdf');
    await fs.writeFile(small, once.body);
    const r = await post('/api/compress-pdf', small, { level: 'balanced' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-compressed-size')).toBe(r.headers.get('x-original-size'));
    expect(r.body.equals(once.body)).toBe(true);
    expect(await uploadsLeft()).toEqual([]);
  }, 60_000);

  test('a non-ASCII file name is made header-safe (RFC 6266 filename*)', async () => {
    const r = await post('/api/compress-pdf', files.text, { level: 'balanced' }, { name: 'Plan situație Țăndărei.pdf' });
    expect(r.status).toBe(200);
    const cd = r.headers.get('content-disposition') ?? '';
    expect(cd).toContain(`filename*=UTF-8''${encodeURIComponent('Plan situație Țăndărei-comprimat.pdf')}`);
    expect(cd).toContain('filename="Plan situatie Tandarei-comprimat.pdf"');
  }, 60_000);

  test('a file that is not a PDF is a 400 bad_request', async () => {
    const r = await post('/api/compress-pdf', files.notPdf, { level: 'balanced' });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: 'bad_request', message: 'Fișierul trimis nu este un PDF.' });
    expect(await uploadsLeft()).toEqual([]);
  });

  test('an encrypted PDF is a 422 with a Romanian hint to unlock it first', async () => {
    const r = await post('/api/compress-pdf', files.encrypted, { level: 'balanced' });
    expect(r.status).toBe(422);
    const body = r.json();
    expect(body.error).toBe('pdf_encrypted');
    expect(body.hint).toMatch(/Deblocați mai întâi/);
    expect(await uploadsLeft()).toEqual([]);
  });

  test('a missing file or an unknown level is a 400 with details', async () => {
    const none = await post('/api/compress-pdf', null, { level: 'balanced' });
    expect(none.status).toBe(400);
    expect(none.json().details).toEqual([{ field: 'file', problem: 'required' }]);
    const bad = await post('/api/compress-pdf', files.text, { level: 'maxim' });
    expect(bad.status).toBe(400);
    expect(bad.json().details[0].field).toBe('level');
    expect(await uploadsLeft()).toEqual([]);
  });

  test('without a session the answer is 401 and nothing is written to disk', async () => {
    for (const p of ['/api/compress-pdf', '/api/compress-pdf/extreme']) {
      const r = await post(p, files.text, { level: 'balanced' }, { who: null });
      expect(r.status).toBe(401);
      expect(r.json().error).toBe('unauthorized');
    }
    expect(await fs.readdir(uploads)).toEqual([]);
  });

  test('an upload over the limit is a 413 payload_too_large and leaves no temp file', async () => {
    // The 500 MB limit lowered for this test; the same helper path refuses the body.
    configurePdfUploads({ maxBytes: 256 * 1024 });
    try {
      const r = await post('/api/compress-pdf', files.scan, { level: 'balanced' });
      expect(r.status).toBe(413);
      expect(r.json().error).toBe('payload_too_large');
    } finally {
      delete pdfUploadOptions.maxBytes;
    }
    expect(await uploadsLeft()).toEqual([]);
  }, 60_000);

  test('a client that disconnects mid-upload leaves no temp file', async () => {
    const boundary = 'deconectare';
    const url = new URL(`${base}/api/compress-pdf`);
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        cookie: dan.cookie,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(8 * 1024 * 1024),
      },
    });
    req.on('error', () => undefined);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    req.write((await fs.readFile(files.scan)).subarray(0, 1024 * 1024));
    // The server has started writing the file to disk before the client goes away.
    const written = async () => {
      const [dir] = await fs.readdir(uploads);
      if (!dir) return 0;
      return fs.stat(path.join(uploads, dir, 'f0')).then((st) => st.size, () => 0);
    };
    for (let i = 0; i < 200 && (await written()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await written()).toBeGreaterThan(0);
    req.destroy();
    expect(await uploadsLeft()).toEqual([]);
  });
});
