/**
 * The cloud side of the PDF tools end to end: the real app, a real session, and the test stack's
 * PDF service simulator over HTTP (it runs real qpdf and Ghostscript), on the generated corpus.
 * Cloud compression levels, the never-larger rule on what the service answers, unlock with the
 * right and a wrong password, and what the user hears when the service fails.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { config } from '../../domain/config';
import { logger } from '../../domain/log';
import { ENCRYPTED_OWNER_PASSWORD, ENCRYPTED_USER_PASSWORD } from '../helpers/pdfFixtures';
import { startPdfRig, type PdfRig } from '../helpers/pdfRig';

let rig: PdfRig;
const sim = config.pdfService.baseUrl;

async function simCall(method: string, p: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sim}${p}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const simCounts = async () => (await simCall('GET', '/__sim/requests')).counts as Record<string, number>;

interface Processed {
  op: string;
  level?: string;
  inputBytes: number;
  outputBytes?: number;
  status: number;
}
const simProcessed = async () => (await simCall('GET', '/__sim/truth')).processed as Processed[];

/** `qpdf --is-encrypted`: exit 0 encrypted, 2 not. */
function isEncrypted(file: string): Promise<boolean> {
  return new Promise((resolve) => execFile('qpdf', ['--is-encrypted', file], (err) => resolve(!err)));
}

beforeAll(async () => {
  rig = await startPdfRig('pdf-cloud', 'ioana@birou.ro');
  await simCall('POST', '/__sim/reset', {});
}, 120_000);

afterEach(async () => {
  await simCall('DELETE', '/__sim/faults');
});

afterAll(async () => {
  await rig?.close();
});

describe('POST /api/compress-pdf, cloud levels through the PDF service', () => {
  test('recommended, extreme and low each answer a valid, smaller PDF, and shrink in order', async () => {
    await simCall('DELETE', '/__sim/requests');
    const original = (await fs.stat(rig.files.scan)).size;
    const sizes: Record<string, number> = {};
    for (const level of ['low', 'recommended', 'extreme']) {
      const r = await rig.post('/api/compress-pdf', rig.files.scan, { level, mode: 'cloud' }, { name: 'Releveu scanat.pdf' });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/pdf');
      expect(r.headers.get('x-compression-mode')).toBe('cloud');
      expect(r.headers.get('x-compression-level')).toBe(level);
      expect(Number(r.headers.get('x-original-size'))).toBe(original);
      expect(Number(r.headers.get('x-compressed-size'))).toBe(r.body.length);
      expect(r.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('Releveu scanat-comprimat.pdf')}`);
      expect(r.body.length).toBeLessThan(original);
      expect(await rig.pageCount(r.body)).toBe(1);
      sizes[level] = r.body.length;
      expect(await rig.uploadsLeft()).toEqual([]);
    }
    expect(sizes.recommended).toBeLessThan(sizes.low);
    expect(sizes.extreme).toBeLessThan(sizes.recommended);
    // Each level went to the service once, with the whole file.
    const counts = await simCounts();
    expect(counts['compress:level:low']).toBe(1);
    expect(counts['compress:level:recommended']).toBe(1);
    expect(counts['compress:level:extreme']).toBe(1);
    const processed = (await simProcessed()).filter((p) => p.op === 'compress').slice(-3);
    expect(processed.map((p) => p.inputBytes)).toEqual([original, original, original]);
  }, 60_000);

  test('recommended and low are cloud levels without mode; extreme alone stays local', async () => {
    await simCall('DELETE', '/__sim/requests');
    const rec = await rig.post('/api/compress-pdf', rig.files.scan, { level: 'recommended' });
    expect(rec.status).toBe(200);
    expect(rec.headers.get('x-compression-mode')).toBe('cloud');
    const ext = await rig.post('/api/compress-pdf', rig.files.scan, { level: 'extreme' });
    expect(ext.status).toBe(200);
    expect(ext.headers.get('x-compression-mode')).toBe('local');
    const counts = await simCounts();
    expect(counts['compress:level:recommended']).toBe(1);
    expect(counts['compress:level:extreme']).toBeUndefined();
    const wrong = await rig.post('/api/compress-pdf', rig.files.scan, { level: 'high', mode: 'cloud' });
    expect(wrong.status).toBe(400);
    expect(wrong.json().details?.[0].field).toBe('level');
  }, 60_000);

  test('the answer is never larger than the upload, even when the service answers a larger file', async () => {
    const original = (await fs.stat(rig.files.text)).size;
    for (const level of ['low', 'recommended', 'extreme']) {
      const r = await rig.post('/api/compress-pdf', rig.files.text, { level, mode: 'cloud' });
      expect(r.status).toBe(200);
      expect(r.body.length).toBeLessThanOrEqual(original);
      expect(Number(r.headers.get('x-compressed-size'))).toBe(r.body.length);
      expect(await rig.pageCount(r.body)).toBe(3);
      const [last] = (await simProcessed()).slice(-1);
      expect(last).toMatchObject({ op: 'compress', level, inputBytes: original, status: 200 });
      // What the service answered decides only whether it is kept: larger or equal → the original.
      if (last.outputBytes! >= original) expect(r.body.equals(await fs.readFile(rig.files.text))).toBe(true);
      else expect(r.body.length).toBe(last.outputBytes);
    }
    expect(await rig.uploadsLeft()).toEqual([]);
  }, 60_000);

  test('an encrypted PDF or a non-PDF is refused before anything is sent to the service', async () => {
    await simCall('DELETE', '/__sim/requests');
    const enc = await rig.post('/api/compress-pdf', rig.files.encrypted, { level: 'recommended' });
    expect(enc.status).toBe(422);
    expect(enc.json()).toMatchObject({ error: 'pdf_encrypted' });
    expect(enc.json().hint).toMatch(/Deblocați mai întâi/);
    const notPdf = await rig.post('/api/compress-pdf', rig.files.notPdf, { level: 'low' });
    expect(notPdf.status).toBe(400);
    expect(notPdf.json()).toMatchObject({ error: 'bad_request', message: 'Fișierul trimis nu este un PDF.' });
    expect(await simCounts()).toEqual({});
    expect(await rig.uploadsLeft()).toEqual([]);
  });

  test('a failing service is tried again, then answers 502 in Romanian; maintenance answers 503', async () => {
    await simCall('DELETE', '/__sim/requests');
    await simCall('POST', '/__sim/faults', { errorRate: 1 });
    const failed = await rig.post('/api/compress-pdf', rig.files.text, { level: 'recommended' });
    expect(failed.status).toBe(502);
    expect(failed.json()).toMatchObject({ error: 'pdf_service_error', message: 'Serviciul PDF din cloud a răspuns cu o eroare.' });
    expect(failed.json().hint).toMatch(/nivel de comprimare local/);
    // One call and the configured retries: compression is a pure transform, safe to repeat.
    expect((await simCounts())['received:POST /compress']).toBe(1 + config.pdfService.retryAttempts);

    await simCall('POST', '/__sim/faults', { errorRate: 0, maintenance: true });
    const down = await rig.post('/api/compress-pdf', rig.files.text, { level: 'low' });
    expect(down.status).toBe(503);
    expect(down.json()).toMatchObject({ error: 'pdf_service_unavailable', message: 'Serviciul PDF din cloud nu este disponibil momentan.' });
    expect(await rig.uploadsLeft()).toEqual([]);
  }, 30_000);
});

describe('the PDF service simulator', () => {
  test('refuses a caller without the API key and resets its counters and truth', async () => {
    const form = new FormData();
    form.append('level', 'low');
    form.append('file', new Blob([await fs.readFile(rig.files.text)], { type: 'application/pdf' }), 'text.pdf');
    const anonymous = await fetch(`${sim}/compress`, { method: 'POST', body: form });
    expect(anonymous.status).toBe(401);
    expect(await simCounts()).toMatchObject({ 'received:POST /compress': expect.any(Number) });
    await simCall('POST', '/__sim/reset', { seed: 1 });
    expect(await simCounts()).toEqual({});
    expect(await simProcessed()).toEqual([]);
    expect((await simCall('GET', '/__sim/faults')) as unknown).toMatchObject({ maintenance: false, errorRate: 0, latencyMs: 0 });
  });

  test('a client that leaves while the service works stops the call and leaves no temp file', async () => {
    await simCall('DELETE', '/__sim/requests');
    await simCall('POST', '/__sim/faults', { latencyMs: 1500 });
    const form = new FormData();
    form.append('level', 'recommended');
    form.append('file', new Blob([await fs.readFile(rig.files.scan)], { type: 'application/pdf' }), 'scan.pdf');
    const ac = new AbortController();
    const call = fetch(`${rig.base}/api/compress-pdf`, { method: 'POST', body: form, headers: { cookie: rig.user.cookie }, signal: ac.signal });
    // Wait until the service has the call (it sits in the simulated latency), then leave.
    for (let i = 0; i < 100 && !(await simCounts())['received:POST /compress']; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await simCounts())['received:POST /compress']).toBe(1);
    ac.abort();
    await expect(call).rejects.toThrow();
    expect(await rig.uploadsLeft()).toEqual([]);
    // Not retried after the client left.
    await new Promise((r) => setTimeout(r, 2000));
    expect((await simCounts())['received:POST /compress']).toBe(1);
  }, 30_000);
});

describe('POST /api/pdf/unlock', () => {
  test('the right password answers the unlocked PDF as an attachment', async () => {
    const r = await rig.post('/api/pdf/unlock', rig.files.encrypted, { password: ENCRYPTED_USER_PASSWORD }, { name: 'Autorizație construire.pdf' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    const cd = r.headers.get('content-disposition') ?? '';
    expect(cd).toMatch(/^attachment;/);
    expect(cd).toContain(`filename*=UTF-8''${encodeURIComponent('Autorizație construire-deblocat.pdf')}`);
    expect(cd).toContain('filename="Autorizatie construire-deblocat.pdf"');
    const out = path.join(rig.work, 'unlocked.pdf');
    await fs.writeFile(out, r.body);
    expect(await isEncrypted(rig.files.encrypted)).toBe(true);
    expect(await isEncrypted(out)).toBe(false);
    expect(await rig.pageCount(r.body)).toBe(3);
    // The unlocked file can now be compressed.
    const c = await rig.post('/api/compress-pdf', out, { level: 'balanced' });
    expect(c.status).toBe(200);
    expect(await rig.uploadsLeft()).toEqual([]);
  }, 30_000);

  test('the owner password unlocks it too', async () => {
    const r = await rig.post('/api/pdf/unlock', rig.files.encrypted, { password: ENCRYPTED_OWNER_PASSWORD });
    expect(r.status).toBe(200);
    expect(await rig.pageCount(r.body)).toBe(3);
  });

  test('a wrong password is a 403 with a Romanian message that does not repeat the password', async () => {
    await simCall('DELETE', '/__sim/requests');
    const r = await rig.post('/api/pdf/unlock', rig.files.encrypted, { password: 'parola-gresita-123' });
    expect(r.status).toBe(403);
    const body = r.json();
    expect(body).toMatchObject({ error: 'wrong_password', message: 'Parola introdusă nu este corectă: PDF-ul nu a putut fi deblocat.' });
    expect(r.body.toString('utf8')).not.toContain('parola-gresita-123');
    // The service's answer is final: a wrong password is not tried again.
    expect(await simCounts()).toMatchObject({ 'received:POST /unlock': 1, 'unlock:wrong_password': 1 });
    expect(await rig.uploadsLeft()).toEqual([]);
  });

  test('not a PDF is a 400; no file or no password is a 400 with details; an unencrypted PDF is a 422', async () => {
    const notPdf = await rig.post('/api/pdf/unlock', rig.files.notPdf, { password: 'x' });
    expect(notPdf.status).toBe(400);
    expect(notPdf.json()).toMatchObject({ error: 'bad_request', message: 'Fișierul trimis nu este un PDF.' });
    const none = await rig.post('/api/pdf/unlock', null, {});
    expect(none.status).toBe(400);
    expect(none.json().details).toEqual([
      { field: 'file', problem: 'required' },
      { field: 'password', problem: 'required' },
    ]);
    const plain = await rig.post('/api/pdf/unlock', rig.files.text, { password: 'x' });
    expect(plain.status).toBe(422);
    expect(plain.json().error).toBe('pdf_not_encrypted');
    expect(await rig.uploadsLeft()).toEqual([]);
  });

  test('without a session the answer is 401', async () => {
    const r = await rig.post('/api/pdf/unlock', rig.files.encrypted, { password: ENCRYPTED_USER_PASSWORD }, { who: null });
    expect(r.status).toBe(401);
  });

  test('the password reaches no log line, not even when the service fails and the call is retried', async () => {
    const password = 'Secret-Țărm-9931';
    const lines: string[] = [];
    const streamSym = pino.symbols.streamSym as unknown as keyof typeof logger;
    const target = logger as unknown as Record<symbol, unknown>;
    const saved = { stream: target[streamSym as unknown as symbol], level: logger.level };
    target[streamSym as unknown as symbol] = { write: (s: string) => void lines.push(s) };
    logger.level = 'trace';
    try {
      const wrong = await rig.post('/api/pdf/unlock', rig.files.encrypted, { password });
      expect(wrong.status).toBe(403);
      await simCall('POST', '/__sim/faults', { errorRate: 1 });
      const failed = await rig.post('/api/pdf/unlock', rig.files.encrypted, { password });
      expect(failed.status).toBe(502);
    } finally {
      target[streamSym as unknown as symbol] = saved.stream;
      logger.level = saved.level;
    }
    // The request log and the retry warnings were written, and none carries the password.
    expect(lines.some((l) => l.includes('/api/pdf/unlock'))).toBe(true);
    expect(lines.some((l) => l.includes('PDF service call failed'))).toBe(true);
    expect(lines.filter((l) => l.includes(password))).toEqual([]);
  }, 30_000);
});
