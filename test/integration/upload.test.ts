/**
 * The streamed multipart helper (api/http/upload.ts) on a real HTTP server: files land on disk
 * with their size and SHA-256, an over-limit body answers 413 `payload_too_large`, and the temp
 * files are gone after every outcome, a client that hangs up mid-upload included.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { errorMapper } from '../../api/http/errorMapper';
import { withUpload } from '../../api/http/upload';

let server: http.Server;
let base: string;
let tmp: string;
const LIMIT = 1024 * 1024;
let seenDuringHandler: string[] = [];

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'upload-test-'));
  const app = express();
  app.post('/up', (req, res, next) => {
    withUpload(req, { maxBytes: LIMIT, fileFields: ['file'], tmpDir: tmp }, async (up) => {
      seenDuringHandler = await fs.readdir(tmp);
      const f = up.files[0];
      const onDisk = await fs.readFile(f.path);
      res.json({ name: f.fileName, size: f.size, sha256: f.sha256, diskSha: createHash('sha256').update(onDisk).digest('hex'), fields: up.fields });
    }).catch(next);
  });
  app.use(errorMapper);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await fs.rm(tmp, { recursive: true, force: true });
});

async function tmpEmpty(): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if ((await fs.readdir(tmp)).length === 0) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

test('a file is streamed to disk with its size and hash, and removed after the handler', async () => {
  const bytes = randomBytes(200_000);
  const form = new FormData();
  form.append('note', 'dosar 12');
  form.append('file', new Blob([bytes]), 'Plan ședință.dwg');
  const r = await fetch(`${base}/up`, { method: 'POST', body: form });
  expect(r.status).toBe(200);
  const body = await r.json();
  const sha = createHash('sha256').update(bytes).digest('hex');
  expect(body).toEqual({ name: 'Plan ședință.dwg', size: bytes.length, sha256: sha, diskSha: sha, fields: { note: 'dosar 12' } });
  expect(seenDuringHandler).toHaveLength(1);
  expect(await tmpEmpty()).toBe(true);
});

test('a body over the limit answers 413 payload_too_large and leaves no temp file', async () => {
  // Chunked (no Content-Length), so the limit is found while streaming.
  const stream = new ReadableStream({
    start(c) {
      const boundary = '----b';
      c.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="mare.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`));
      for (let i = 0; i < 24; i++) c.enqueue(randomBytes(100_000));
      c.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
      c.close();
    },
  });
  const r = await fetch(`${base}/up`, { method: 'POST', body: stream, headers: { 'content-type': 'multipart/form-data; boundary=----b' }, duplex: 'half' } as RequestInit);
  expect(r.status).toBe(413);
  expect((await r.json()).error).toBe('payload_too_large');
  expect(await tmpEmpty()).toBe(true);
});

test('a declared Content-Length over the limit is refused before reading', async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${base}/up`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(600 * 1024 * 1024) } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write('--x\r\n');
  });
  expect(status).toBe(413);
  expect(await tmpEmpty()).toBe(true);
});

test('a client that hangs up mid-upload leaves no temp file', async () => {
  await new Promise<void>((resolve) => {
    const req = http.request(`${base}/up`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'transfer-encoding': 'chunked' } });
    req.on('error', () => resolve());
    req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n');
    req.write(randomBytes(300_000));
    setTimeout(() => {
      req.destroy();
      resolve();
    }, 200);
  });
  expect(await tmpEmpty()).toBe(true);
});

test('a request that is not multipart answers 400', async () => {
  const r = await fetch(`${base}/up`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  expect(r.status).toBe(400);
});
