/**
 * The PDF tests' rig: the real app (createApp) on a free port, a real session, the generated
 * corpus (pdfFixtures.ts) and a private upload directory, so a test can check that every
 * temporary file is gone after each request.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import { listenApp } from './appServer';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app';
import type { PdfRouteOptions } from '../../api/routes/pdfTools';
import { closePool } from '../../domain/db/pool';
import { createStore } from '../../domain/db/store';
import { makePdfCorpus, pdfPageCount, type PdfCorpus } from './pdfFixtures';
import { createTestSessionRecord, type TestSession } from './session';

export interface PdfAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  json(): Record<string, unknown> & { error?: string; message?: string; hint?: string; details?: Array<{ field: string; problem: string }> };
}

export interface PdfRig {
  base: string;
  work: string;
  uploads: string;
  files: PdfCorpus;
  user: TestSession;
  /** Multipart POST of `file` (as `file`) and `fields`; `who: null` sends no session. */
  post(p: string, file: string | null, fields?: Record<string, string>, opts?: { name?: string; who?: TestSession | null }): Promise<PdfAnswer>;
  /** The upload directories left (waits a little: they go right after the last byte is sent). */
  uploadsLeft(): Promise<string[]>;
  /** Pages of an answered PDF, after `qpdf --check`. */
  pageCount(buf: Buffer): Promise<number>;
  /** Runs `fn` against a second app of the rig whose PDF routes take `pdf` (the rig's upload directory unless given). */
  withApp<T>(pdf: PdfRouteOptions, fn: (post: PdfRig['post']) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startPdfRig(prefix: string, email = 'dan@birou.ro'): Promise<PdfRig> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), `${prefix}-`));
  const uploads = path.join(work, 'uploads');
  await fs.mkdir(uploads);
  const files = await makePdfCorpus(work);
  const user = await createTestSessionRecord({ email, company: 'B' });
  const store = createStore();
  const listen = async (pdf: PdfRouteOptions) => {
    return listenApp(createApp({ store, pdf: { tmpDir: uploads, ...pdf } }));
  };
  const closeServer = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  const poster = (base: string): PdfRig['post'] => async (p, file, fields = {}, opts = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    if (file) form.append('file', new Blob([await fs.readFile(file)], { type: 'application/pdf' }), opts.name ?? path.basename(file));
    const who = opts.who === undefined ? user : opts.who;
    const res = await fetch(`${base}${p}`, { method: 'POST', body: form, headers: who ? { cookie: who.cookie } : {} });
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) };
  };
  const { server, base } = await listen({});

  return {
    base,
    work,
    uploads,
    files,
    user,
    post: poster(base),
    async withApp(pdf, fn) {
      const other = await listen(pdf);
      try {
        return await fn(poster(other.base));
      } finally {
        await closeServer(other.server);
      }
    },
    async uploadsLeft() {
      for (let i = 0; i < 100; i++) {
        const left = await fs.readdir(uploads);
        if (left.length === 0) return left;
        await new Promise((r) => setTimeout(r, 50));
      }
      return fs.readdir(uploads);
    },
    async pageCount(buf) {
      const f = path.join(work, `check-${Math.random().toString(36).slice(2)}.pdf`);
      await fs.writeFile(f, buf);
      return pdfPageCount(f);
    },
    async close() {
      await user.end();
      await closeServer(server);
      await store.close();
      await closePool();
      await fs.rm(work, { recursive: true, force: true });
    },
  };
}
