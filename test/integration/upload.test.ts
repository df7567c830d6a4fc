/**
 * The streamed multipart helper (api/http/upload.ts) on a real HTTP server: files land on disk
 * with their size and SHA-256, an over-limit body answers 413 `payload_too_large`, and the temp
 * files are gone after every outcome, a client that hangs up mid-upload included; one user's
 * uploads in flight are capped (429) without touching another user's, and the temp disk's byte
 * budget and free margin refuse an upload with 507 before it is written.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { errorMapper } from '../../api/http/errorMapper';
import { withUpload } from '../../api/http/upload';
import { listenApp } from '../helpers/appServer';

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
  ({ server, base } = await listenApp(app));
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

describe('caps: uploads in flight per user, and the temp disk budget', () => {
  const MB = 1024 * 1024;
  let capped: http.Server;
  let capBase: string;
  let capTmp: string;

  beforeAll(async () => {
    capTmp = await fs.mkdtemp(path.join(os.tmpdir(), 'upload-cap-test-'));
    const app = express();
    // The user a request counts for, as the session middleware would set it.
    app.use((req, _res, next) => {
      const id = req.get('x-user');
      if (id) (req as unknown as { auth: unknown }).auth = { user: { id } };
      next();
    });
    const route = (p: string, margin: number) =>
      app.post(p, (req, res, next) => {
        withUpload(req, { maxBytes: 8 * MB, fileFields: ['file'], tmpDir: capTmp, tmpBudgetBytes: 6 * MB, tmpFreeMarginBytes: margin }, async (up) => {
          res.json({ size: up.files[0].size });
        }).catch(next);
      });
    route('/up', 0);
    // A disk that must keep more free space than any disk has.
    route('/full', Number.MAX_SAFE_INTEGER);
    app.use(errorMapper);
    ({ server: capped, base: capBase } = await listenApp(app));
  });
  afterAll(async () => {
    await new Promise((r) => capped.close(r));
    await fs.rm(capTmp, { recursive: true, force: true });
  });

  const send = async (user: string, size: number, route = '/up') => {
    const form = new FormData();
    form.append('file', new Blob([randomBytes(size)]), 'act.pdf');
    const r = await fetch(`${capBase}${route}`, { method: 'POST', body: form, headers: { 'x-user': user } });
    return { status: r.status, body: await r.json() };
  };

  /** An upload whose client sends the start of its body and keeps the rest until `finish`. */
  const held = (user: string, size: number) => {
    const head = Buffer.from('--h\r\nContent-Disposition: form-data; name="file"; filename="mare.bin"\r\nContent-Type: application/octet-stream\r\n\r\n');
    const tail = Buffer.from('\r\n--h--\r\n');
    const data = randomBytes(size);
    const req = http.request(`${capBase}/up`, {
      method: 'POST',
      headers: { 'x-user': user, 'content-type': 'multipart/form-data; boundary=h', 'content-length': String(head.length + size + tail.length) },
    });
    const answer = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    req.write(head);
    req.write(data.subarray(0, 1000));
    return {
      answer,
      finish: () => {
        req.end(Buffer.concat([data.subarray(1000), tail]));
        return answer;
      },
    };
  };

  /** Uploads the server is receiving: one temp directory each. */
  const receiving = async (n: number) => {
    for (let i = 0; i < 100 && (await fs.readdir(capTmp)).length !== n; i++) await new Promise((r) => setTimeout(r, 20));
    return (await fs.readdir(capTmp)).length;
  };

  test('past their cap a user’s next upload is 429; another user’s 1 MB file is accepted meanwhile (issue 42)', async () => {
    const mine = [held('ana', 2 * MB), held('ana', 2 * MB)];
    expect(await receiving(2)).toBe(2);
    const third = await send('ana', 1000);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('încărcare') });
    expect(await send('dan', MB)).toEqual({ status: 200, body: { size: MB } });
    expect(await Promise.all(mine.map((u) => u.finish()))).toEqual([200, 200]);
    expect((await send('ana', 1000)).status).toBe(200);
    expect(await receiving(0)).toBe(0);
  });

  test('an upload that would pass the temp disk budget is 507 insufficient_storage before a byte is written; so is one that would eat the free margin', async () => {
    const big = held('ana', 5 * MB);
    expect(await receiving(1)).toBe(1);
    const refused = await send('dan', 2 * MB);
    expect(refused.status).toBe(507);
    expect(refused.body).toMatchObject({ error: 'insufficient_storage', message: expect.stringContaining('Spațiul temporar') });
    // Only Ana's upload is on the disk.
    expect((await fs.readdir(capTmp)).length).toBe(1);
    expect(await big.finish()).toBe(200);
    // Her reservation goes with her temp files.
    expect(await receiving(0)).toBe(0);
    expect((await send('dan', 2 * MB)).status).toBe(200);
    expect((await send('dan', 1000, '/full')).status).toBe(507);
    expect(await receiving(0)).toBe(0);
  });
});
