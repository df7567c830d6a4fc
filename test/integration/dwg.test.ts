/**
 * DWG → DXF end to end: real DWG drawings written by ezdwg (the bootstrap's virtualenv) from the
 * descriptions below (test/helpers/dwgFixtures.ts), sent through the real app (createApp, a real session) to the real
 * conversion sidecar of the test stack (LibreDWG in WebAssembly), and every DXF opened with
 * GDAL's ogrinfo and its entities counted against what was drawn.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { listenApp } from '../helpers/appServer';

const run = promisify(execFile);

// The main service's upload temp files go here, so the test can see them removed.
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'dwg-test-'));
const uploads = path.join(work, 'uploads');
process.env.UPLOAD_TMP_DIR = uploads;

const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const store = createStore();
const { config } = await import('../../domain/config');
const { closePool } = await import('../../domain/db/pool');
const { createTestSessionRecord } = await import('../helpers/session');
const { startDwgSidecar } = await import('../../sidecars/dwg/server');
const { convertDwgFile, ConversionError } = await import('../../sidecars/dwg/convert');
const { countDxfEntities } = await import('../../domain/dwg/format');
const { drawnCounts, writeDwgFixtures } = await import('../helpers/dwgFixtures');
const { isAlive } = await import('../helpers/stackProcs');
type Drawing = import('../helpers/dwgFixtures').Drawing;
type TestSession = Awaited<ReturnType<typeof createTestSessionRecord>>;

/** Stereo 70-like coordinates, as a surveyor's drawing has them. */
const DRAWINGS: Drawing[] = [
  {
    name: 'lines',
    lines: [
      [585000, 395000, 585040, 395000],
      [585040, 395000, 585040, 395025],
      [585040, 395025, 585000, 395025],
      [585000, 395025, 585000, 395000],
      [585000, 395000, 585040, 395025],
    ],
  },
  { name: 'circles', circles: [[585010, 395010, 1], [585020, 395010, 2.5], [585030, 395010, 0.5], [585040, 395010, 10]] },
  {
    name: 'text',
    texts: [
      ['Parcela 1234', 585005, 395005, 2.5],
      // ANSI_1250, the code page of Romanian drawings, has only the cedilla ş ţ.
      ['Suprafaţă 500 mp, împrejmuită', 585005, 395001, 1.8],
      ['Nr. cadastral 56789', 585005, 394997, 1.8],
    ],
  },
  {
    name: 'blocks',
    blocks: { BORNA: { lines: [[-1, 0, 1, 0], [0, -1, 0, 1]], circles: [[0, 0, 0.75]] }, ARBORE: { circles: [[0, 0, 2]] } },
    lines: [[585000, 395000, 585040, 395000]],
    inserts: [['BORNA', 585000, 395000], ['BORNA', 585040, 395000], ['BORNA', 585040, 395025], ['ARBORE', 585020, 395012]],
  },
];

/** What a DXF reader reports for each DWG entity type (GDAL's SubClasses field). */
const SUBCLASS: Record<string, string> = { AcDbLine: 'LINE', AcDbCircle: 'CIRCLE', AcDbText: 'TEXT', AcDbBlockReference: 'INSERT' };

interface OgrFeature {
  layer: string;
  fields: Record<string, string>;
  geometry: string;
}

/** Every feature of every layer, read by `ogrinfo` with blocks kept as block references. */
async function ogrFeatures(dxf: string): Promise<OgrFeature[]> {
  const { stdout } = await run('ogrinfo', ['--config', 'DXF_INLINE_BLOCKS', 'FALSE', '-ro', '-al', '-q', dxf], { maxBuffer: 64 * 1024 * 1024 });
  const features: OgrFeature[] = [];
  for (const chunk of stdout.split(/^OGRFeature\(/m).slice(1)) {
    const [head, ...rest] = chunk.split('\n');
    const f: OgrFeature = { layer: head.slice(0, head.indexOf(')')), fields: {}, geometry: '' };
    for (const line of rest) {
      const field = /^ {2}(\w+) \(\w+\) = (.*)$/.exec(line);
      if (field) f.fields[field[1]] = field[2];
      else if (/^ {2}[A-Z]+/.test(line) && !line.startsWith('  Style')) f.geometry = line.trim();
    }
    features.push(f);
  }
  return features;
}

function countByType(features: OgrFeature[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of features.filter((x) => x.layer === 'entities')) {
    const sub = (f.fields.SubClasses ?? '').split(':').find((s) => SUBCLASS[s]);
    const type = sub ? SUBCLASS[sub] : `other:${f.fields.SubClasses}`;
    out[type] = (out[type] ?? 0) + 1;
  }
  return out;
}

let server: http.Server;
let base: string;
let dan: TestSession;
const fixture = (name: string) => path.join(work, 'fixtures', `${name}.dwg`);

async function convert(file: string | null, opts: { name?: string; who?: TestSession | null; type?: string } = {}) {
  const form = new FormData();
  if (file) form.append('file', new Blob([await fs.readFile(file)], { type: opts.type ?? 'application/acad' }), opts.name ?? path.basename(file));
  const who = opts.who === undefined ? dan : opts.who;
  const res = await fetch(`${base}/api/dwg/convert`, { method: 'POST', body: form, headers: who ? { cookie: who.cookie } : {} });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) };
}

/** The helper removes the upload directory right after the last byte is sent: wait for it. */
async function uploadsLeft(): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const left = await fs.readdir(uploads).catch(() => []);
    if (left.length === 0) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
  return fs.readdir(uploads);
}

/** `base` is an app aimed at another sidecar for the duration of `fn`. */
async function withConverterUrl<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const { server: other, base: otherBase } = await listenApp(createApp({ store, outside: { dwgSidecarUrl: url } }));
  const saved = base;
  base = otherBase;
  try {
    return await fn();
  } finally {
    base = saved;
    await new Promise<void>((resolve) => other.close(() => resolve()));
  }
}

beforeAll(async () => {
  await fs.mkdir(uploads, { recursive: true });
  await writeDwgFixtures(path.join(work, 'fixtures'), DRAWINGS);
  // A damaged drawing: the first half of a real one. Random bytes behind a real DWG header.
  const lines = await fs.readFile(fixture('lines'));
  await fs.writeFile(fixture('truncated'), lines.subarray(0, Math.floor(lines.length / 2)));
  await fs.writeFile(fixture('garbage'), Buffer.concat([Buffer.from('AC1015'), Buffer.alloc(4000, 0x5a)]));
  await fs.writeFile(path.join(work, 'notes.dwg'), 'Acesta nu este un desen, doar un fișier text cu extensia .dwg.\n');

  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'B' });
  ({ server, base } = await listenApp(createApp({ store })));
}, 60_000);

afterAll(async () => {
  await dan?.end();
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
  await closePool();
  await fs.rm(work, { recursive: true, force: true });
});

describe('the conversion sidecar', () => {
  test('answers its health check with the LibreDWG engine, and the app reports it available', async () => {
    const res = await fetch(`${config.dwg.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', engine: '@mlightcad/libredwg-web', engineVersion: '0.7.14' });
    const status = await fetch(`${base}/api/dwg/status`, { headers: { cookie: dan.cookie } });
    expect(await status.json()).toEqual({ available: true, engine: '@mlightcad/libredwg-web', engineVersion: '0.7.14' });
  });

  test('takes the DWG as multipart `file` or as the raw body; refuses what is not a DWG', async () => {
    const form = new FormData();
    form.append('file', new Blob([await fs.readFile(fixture('circles'))]), 'circles.dwg');
    const multipart = await fetch(`${config.dwg.url}/convert`, { method: 'POST', body: form });
    expect(multipart.status).toBe(200);
    expect(multipart.headers.get('x-dxf-entity-types')).toBe('CIRCLE=4');
    expect(await multipart.text()).toMatch(/^999\r?\nLibreDWG .*\r?\n *0\r?\nSECTION/);
    const raw = await fetch(`${config.dwg.url}/convert`, { method: 'POST', body: await fs.readFile(path.join(work, 'notes.dwg')) });
    expect(raw.status).toBe(422);
    expect((await raw.json()).error).toBe('not_dwg');
  }, 30_000);

  test('ezdwg wrote real R2000 drawings', async () => {
    for (const d of DRAWINGS) {
      const head = (await fs.readFile(fixture(d.name))).subarray(0, 6).toString('latin1');
      expect(head).toBe('AC1015');
    }
  });
});

describe('POST /api/dwg/convert', () => {
  test.each(DRAWINGS.map((d) => [d.name, d] as const))('%s: the DXF opens in GDAL with every entity that was drawn', async (_name, d) => {
    const r = await convert(fixture(d.name));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/dxf');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="${d.name}.dxf"; filename*=UTF-8''${d.name}.dxf`);
    expect(r.headers.get('x-dwg-version')).toBe('AC1015');
    const drawn = drawnCounts(d);
    const total = Object.values(drawn).reduce((a, b) => a + b, 0);
    expect(Number(r.headers.get('x-dxf-entities'))).toBe(total);
    expect(Object.fromEntries((r.headers.get('x-dxf-entity-types') ?? '').split(';').map((p) => [p.split('=')[0], Number(p.split('=')[1])]))).toEqual(drawn);

    const dxf = path.join(work, `${d.name}.dxf`);
    await fs.writeFile(dxf, r.body);
    const features = await ogrFeatures(dxf);
    expect(countByType(features)).toEqual(drawn);
    const entities = features.filter((f) => f.layer === 'entities');
    for (const [x1, y1, x2, y2] of d.lines ?? []) {
      expect(entities.map((f) => f.geometry)).toContain(`LINESTRING Z (${x1} ${y1} 0,${x2} ${y2} 0)`);
    }
    expect(entities.filter((f) => f.fields.Text !== undefined).map((f) => f.fields.Text)).toEqual((d.texts ?? []).map((t) => t[0]));
    expect(entities.filter((f) => f.fields.BlockName).map((f) => f.fields.BlockName)).toEqual((d.inserts ?? []).map((i) => i[0]));
    expect(features.filter((f) => f.layer === 'blocks').map((f) => f.fields.Block).sort()).toEqual(Object.keys(d.blocks ?? {}).sort());
    expect(await uploadsLeft()).toEqual([]);
  }, 30_000);

  test('a file name with diacritics comes back header-safe, with the exact name in filename*', async () => {
    const r = await convert(fixture('circles'), { name: 'Releveu țarc ăâî.DWG' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toBe(
      `attachment; filename="Releveu tarc aai.dxf"; filename*=UTF-8''${encodeURIComponent('Releveu țarc ăâî.dxf')}`,
    );
  }, 30_000);

  test('a damaged DWG → 422 dwg_unreadable with a Romanian message, and the sidecar keeps serving', async () => {
    for (const name of ['truncated', 'garbage']) {
      const r = await convert(fixture(name));
      expect(r.status).toBe(422);
      const body = r.json();
      expect(body.error).toBe('dwg_unreadable');
      expect(body.message).toBe('Desenul DWG este deteriorat sau nu poate fi citit, așa că nu a putut fi convertit în DXF.');
      expect(body.hint).toMatch(/salvați din nou desenul/);
    }
    const health = await fetch(`${config.dwg.url}/health`);
    expect(health.status).toBe(200);
    const again = await convert(fixture('lines'));
    expect(again.status).toBe(200);
    expect(await uploadsLeft()).toEqual([]);
  }, 30_000);

  test('a file that is not a DWG → 422 not_dwg', async () => {
    const r = await convert(path.join(work, 'notes.dwg'));
    expect(r.status).toBe(422);
    expect(r.json()).toMatchObject({ error: 'not_dwg', message: 'Fișierul încărcat nu este un desen DWG.' });
  });

  test('without a session → 401; without a file → 400', async () => {
    const anon = await convert(fixture('lines'), { who: null });
    expect(anon.status).toBe(401);
    expect(anon.json().error).toBe('unauthorized');
    const empty = await convert(null);
    expect(empty.status).toBe(400);
    expect(empty.json().details).toEqual([{ field: 'file', problem: 'required' }]);
  });

  test('the sidecar down → 503 with a Romanian message', async () => {
    // A port that just closed: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const r = await withConverterUrl(`http://127.0.0.1:${port}`, () => convert(fixture('lines')));
    expect(r.status).toBe(503);
    expect(r.json()).toMatchObject({ error: 'dwg_converter_unavailable', message: 'Serviciul de conversie DWG nu este disponibil momentan.' });
    const status = await withConverterUrl(`http://127.0.0.1:${port}`, () => fetch(`${base}/api/dwg/status`, { headers: { cookie: dan.cookie } }));
    expect((await status.json()).available).toBe(false);
  });

  test('a conversion past the deadline is stopped → 504 conversion_timeout, and that sidecar keeps serving', async () => {
    // The same sidecar code with a deadline shorter than any conversion (starting the child alone takes longer).
    const quick = await startDwgSidecar({ port: 0, timeoutMs: 50 });
    try {
      const r = await withConverterUrl(quick.url, () => convert(fixture('lines')));
      expect(r.status).toBe(504);
      expect(r.json()).toMatchObject({ error: 'conversion_timeout', message: 'Conversia a durat mai mult de 120 de secunde și a fost oprită.' });
      const health = await fetch(`${quick.url}/health`);
      expect(await health.json()).toMatchObject({ status: 'ok', running: 0, queued: 0 });
      // Both the app's upload and the sidecar's copy (same temp root here) are gone.
      expect(await uploadsLeft()).toEqual([]);
    } finally {
      await quick.close();
    }
  }, 30_000);
});

describe('one conversion, one child process', () => {
  test('past the deadline the child is killed', async () => {
    let pid = 0;
    const err = await convertDwgFile(fixture('lines'), path.join(work, 'killed.dxf'), { timeoutMs: 50, onSpawn: (c) => (pid = c.pid ?? 0) }).catch((e) => e);
    expect(err).toBeInstanceOf(ConversionError);
    expect(err.kind).toBe('timeout');
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
    await expect(fs.access(path.join(work, 'killed.dxf'))).rejects.toThrow();
  });

  test('a child that crashes fails only its own conversion', async () => {
    const err = await convertDwgFile(fixture('lines'), path.join(work, 'crashed.dxf'), { timeoutMs: 60_000, onSpawn: (c) => c.kill('SIGSEGV') }).catch((e) => e);
    expect(err).toBeInstanceOf(ConversionError);
    expect(err.kind).toBe('crashed');
    const ok = await convertDwgFile(fixture('circles'), path.join(work, 'after-crash.dxf'), { timeoutMs: 60_000 });
    expect(ok.warnings).toBe(0);
    expect(await countDxfEntities(path.join(work, 'after-crash.dxf'))).toEqual({ total: 4, byType: { CIRCLE: 4 } });
  }, 30_000);
});
