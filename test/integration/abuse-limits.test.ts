/**
 * The API holding under abuse (issues 13 and 25): an anonymous caller keeps its per-address limit
 * whatever Authorization header it invents, wrong bearer tokens are counted per address (on the
 * API and on the tile-rebuild webhook), a cadastral search asking for more numbers than the
 * documented cap is refused before any portal call, a JSON body nested deeper than 64 levels is a
 * 400, the heavy routes (PDF tools, DWG conversion, AI chat) answer 429 past their per-user and
 * global caps, and a compression whose client leaves leaves no Ghostscript or qpdf behind. In-process
 * apps on the real database: each test builds its own app, so its rate counters are its own (the
 * heavy-work slots are per process, and each test gives back the ones it took).
 */
import http, { type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { listenApp } from '../helpers/appServer';
import { allPids, procStat } from '../helpers/stackProcs';

process.env.RATE_LIMIT_PER_MINUTE = '300';
process.env.AI_MAX_CONCURRENT = '3';

const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const store = createStore();
const { createTestSessionRecord } = await import('../helpers/session');
const { closePool } = await import('../../domain/db/pool');
const { MAX_CADASTRAL_NUMBERS } = await import('../../domain/enrichment/rules');
const { MAX_JSON_DEPTH } = await import('../../api/http/route');
const { heavyWork } = await import('../../api/http/rateLimit');
const { config, aiSettingsFrom } = await import('../../domain/config');
const { startAiSimulator } = await import('../../simulators/ai/server');
const { makePdfCorpus } = await import('../helpers/pdfFixtures');
const { ogr2ogr, pgDatasource } = await import('../../domain/exports/gdal');
const { HEAVY_CHILD_NICE } = await import('../../domain/childProcess');
type WorkSlots = import('../../domain/concurrency').WorkSlots;

const run = promisify(execFile);
const servers: Server[] = [];
let dan: Awaited<ReturnType<typeof createTestSessionRecord>>;
let ana: Awaited<ReturnType<typeof createTestSessionRecord>>;
let ion: Awaited<ReturnType<typeof createTestSessionRecord>>;
let work: string;
let uploads: string;

async function freshApp(): Promise<string> {
  const { server, base } = await listenApp(createApp({ store, pdf: { tmpDir: uploads } }));
  servers.push(server);
  return base;
}

const randomBearer = () => ({ authorization: `Bearer ${randomBytes(24).toString('hex')}` });

beforeAll(async () => {
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  ana = await createTestSessionRecord({ email: 'ana@birou.ro', company: 'U' });
  ion = await createTestSessionRecord({ email: 'ion@birou.ro', company: 'U' });
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'abuse-limits-'));
  // A private upload directory: the orphan check looks for processes working in it.
  uploads = path.join(work, 'uploads');
  await fs.mkdir(uploads);
});

afterAll(async () => {
  for (const u of [dan, ana, ion]) await u.end();
  for (const s of servers) {
    await new Promise((r) => s.close(r));
  }
  await store.close();
  await closePool();
  await fs.rm(work, { recursive: true, force: true });
});

test('200 random bearer tokens from one address on a cron route end in 429 with Retry-After', async () => {
  const base = await freshApp();
  const statuses: number[] = [];
  let limited: { retryAfter: string | null; body: unknown } | undefined;
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${base}/api/landreg/auto-refresh`, { method: 'POST', headers: randomBearer() });
    statuses.push(res.status);
    const body: unknown = await res.json();
    if (res.status === 429) limited = { retryAfter: res.headers.get('retry-after'), body };
  }
  expect(statuses[0]).toBe(401);
  expect(statuses.slice(-50).every((s) => s === 429)).toBe(true);
  expect(limited!.retryAfter).toMatch(/^\d+$/);
  expect(limited!.body).toMatchObject({ error: 'rate_limited' });
});

test('the tile-rebuild webhook counts wrong tokens per address the same way', async () => {
  const base = await freshApp();
  const statuses: number[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${base}/tiles/rebuild-webhook`, { method: 'POST', headers: randomBearer() });
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  expect(statuses[0]).toBe(401);
  expect(statuses.at(-1)).toBe(429);
});

test('an anonymous caller keeps its per-address limit whatever Authorization header it sends', async () => {
  const base = await freshApp();
  let limitedAt = -1;
  for (let i = 0; i < 400 && limitedAt < 0; i++) {
    // A public route: the answers are 200, so only the per-address limit can stop this caller.
    const res = await fetch(`${base}/api/version`, { headers: randomBearer() });
    if (res.status === 429) limitedAt = i;
    await res.arrayBuffer();
  }
  expect(limitedAt).toBeGreaterThan(0);
  expect(limitedAt).toBeLessThanOrEqual(300);
  // A signed-in user on the same address has their own bucket.
  expect((await fetch(`${base}/api/version`, { headers: { cookie: dan.cookie } })).status).toBe(200);
});

test(`a cadastral search with more than ${MAX_CADASTRAL_NUMBERS} numbers is a 400 naming the field`, async () => {
  const base = await freshApp();
  const numbers = Array.from({ length: MAX_CADASTRAL_NUMBERS + 1 }, (_, i) => String(100000 + i)).join(',');
  const res = await fetch(`${base}/api/landreg/search`, {
    method: 'POST',
    headers: { cookie: dan.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ siruta: 42708, cadastralNumbers: numbers }),
  });
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.error).toBe('bad_request');
  expect(body.details).toEqual([expect.objectContaining({ field: 'cadastralNumbers' })]);
});

test(`a JSON body nested ${MAX_JSON_DEPTH + 1} levels deep is a 400 bad_request; ${MAX_JSON_DEPTH} levels are stored`, async () => {
  const base = await freshApp();
  const nested = (depth: number) => {
    let v: unknown = 'fund';
    for (let i = 0; i < depth; i++) v = { n: v };
    return v;
  };
  // The value sits one level below the body's root.
  const put = (depth: number) =>
    fetch(`${base}/api/storage`, {
      method: 'PUT',
      headers: { cookie: dan.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: 'abuse-depth', key: `k${depth}`, value: nested(depth) }),
    });
  const deep = await put(MAX_JSON_DEPTH);
  expect(deep.status).toBe(400);
  const body = await deep.json();
  expect(body).toMatchObject({ error: 'bad_request', message: expect.stringContaining('imbricat prea adânc') });
  expect(body.details[0].problem).toMatch(/deeper than 64/);
  const fine = await put(MAX_JSON_DEPTH - 1);
  expect(fine.status).toBe(200);
  await fetch(`${base}/api/storage?namespace=abuse-depth&key=k${MAX_JSON_DEPTH - 1}`, { method: 'DELETE', headers: { cookie: dan.cookie } });
  // Thirteen megabytes of nesting, the flood: refused at once, no 500, and the server answers the next request.
  const flood = await fetch(`${base}/api/storage`, {
    method: 'PUT',
    headers: { cookie: dan.cookie, 'content-type': 'application/json' },
    body: `{"namespace":"abuse-depth","key":"flood","value":${'['.repeat(6_000_000)}${']'.repeat(6_000_000)}}`,
  });
  expect(flood.status).toBe(400);
  expect((await fetch(`${base}/api/version`)).status).toBe(200);
});

// ---- heavy work: 429 past each cap ----------------------------------------------------------------

interface OpenUpload {
  /** The answer, once the request ends (or the socket's error when it was cut). */
  answer: Promise<number>;
  /** The client leaves. */
  leave(): void;
}

/**
 * A multipart upload that starts and then keeps the body open: its route takes its slot before it
 * reads a byte of the body, so the request holds the slot for as long as the client keeps it open.
 */
function openUpload(base: string, route: string, cookie: string): OpenUpload {
  const boundary = `----abuse${randomBytes(6).toString('hex')}`;
  const req = http.request(`${base}${route}`, {
    method: 'POST',
    // node:http sends no Origin of its own: a browser's cookie write carries the page's.
    headers: { cookie, origin: new URL(base).origin, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(50 * 1024 * 1024) },
  });
  const answer = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(-1));
  });
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="mare.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  req.write(randomBytes(64 * 1024));
  return { answer, leave: () => req.destroy() };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function smallUpload(base: string, route: string, cookie: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('nu este un fișier de verificat')]), 'mic.bin');
  return fetch(`${base}${route}`, { method: 'POST', body: form, headers: { cookie } });
}

async function expectRefused(res: Response, message: RegExp): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(await res.json()).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(message) });
}

describe.each([
  ['PDF compression', '/api/compress-pdf', () => heavyWork.pdf, () => config.limits.pdf],
  ['DWG conversion', '/api/dwg/convert', () => heavyWork.dwg, () => config.limits.dwg],
] as Array<[string, string, () => WorkSlots, () => { global: number; perUser: number }]>)('%s', (_name, route, slots, caps) => {
  test('past the per-user cap the same user gets 429 with Retry-After; another user is served', async () => {
    const base = await freshApp();
    expect(caps().perUser).toBe(1);
    const held = openUpload(base, route, dan.cookie);
    await until(() => slots().active === 1, 'the held slot');
    await expectRefused(await smallUpload(base, route, dan.cookie), /Aveți deja/);
    // ana is under both caps: her (worthless) file reaches the route's own checks.
    const other = await smallUpload(base, route, ana.cookie);
    expect(other.status).not.toBe(429);
    held.leave();
    await until(() => slots().active === 0, 'the slot given back when the client left');
    expect((await smallUpload(base, route, dan.cookie)).status).not.toBe(429);
  });

  test('past the global cap every user gets 429 until a slot is free', async () => {
    const base = await freshApp();
    expect(caps().global).toBe(2);
    const held = [openUpload(base, route, dan.cookie), openUpload(base, route, ana.cookie)];
    await until(() => slots().active === 2, 'both held slots');
    await expectRefused(await smallUpload(base, route, ion.cookie), /prea multe/);
    held[0].leave();
    await until(() => slots().active === 1, 'one slot free');
    expect((await smallUpload(base, route, ion.cookie)).status).not.toBe(429);
    held[1].leave();
    await until(() => slots().active === 0, 'every slot free');
  });
});

describe('AI chat', () => {
  test('past the per-user cap (2) and the global cap (3 here) the question gets 429; answers free the slots', async () => {
    // A simulator of its own whose streamed answer trickles: each stream holds its slot a while.
    const sim = await startAiSimulator({ port: 0, chunkDelayMs: 400 });
    try {
      const settings = aiSettingsFrom({ NODE_ENV: 'test' }, Number(new URL(sim.url).port));
      const { server, base } = await listenApp(createApp({ store, outside: { ai: settings } }));
      servers.push(server);
      const ask = (cookie: string) =>
        fetch(`${base}/api/ai-chat/stream`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ message: 'Ce acte trebuie pentru o intabulare?' }),
        });
      const streams = [ask(dan.cookie), ask(dan.cookie)];
      await until(() => heavyWork.ai.active === 2, 'two questions in flight');
      await expectRefused(await ask(dan.cookie), /Aveți deja/);
      streams.push(ask(ana.cookie));
      await until(() => heavyWork.ai.active === 3, 'three questions in flight');
      await expectRefused(await ask(ion.cookie), /prea multe/);
      for (const s of await Promise.all(streams)) {
        expect(s.status).toBe(200);
        expect(await s.text()).toContain('event: done');
      }
      await until(() => heavyWork.ai.active === 0, 'every slot free');
      expect((await ask(ion.cookie)).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

// ---- no orphan process -------------------------------------------------------------------------

/**
 * Ghostscript and qpdf processes started by this test process (its descendants), by pid and name,
 * from /proc/<pid>/stat alone. Reading a process's command line takes its memory-map lock, which
 * a Ghostscript busy allocating can hold for seconds: a CI rehearsal's scans of every command line
 * stalled until the compression had ended (the answer 200, Ghostscript never seen).
 */
function toolsOfThisProcess(): Array<{ pid: number; name: string }> {
  const stat = new Map(allPids().map((pid) => [pid, procStat(pid)] as const));
  const ours = (pid: number): boolean => {
    for (let p = stat.get(pid)?.ppid; p !== undefined && p > 1; p = stat.get(p)?.ppid) if (p === process.pid) return true;
    return false;
  };
  return [...stat].flatMap(([pid, st]) => (st && (st.name === 'gs' || st.name === 'qpdf') && ours(pid) ? [{ pid, name: st.name }] : []));
}

/** Processes (pid and command) whose command line names `dir` (Ghostscript and qpdf name their files). */
async function processesWorkingIn(dir: string): Promise<Array<{ pid: number; cmd: string }>> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmd = await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes(dir) && !cmd.startsWith('node')) out.push({ pid: Number(entry), cmd: cmd.split('\0').join(' ') });
  }
  return out;
}

test('a client that leaves mid-compression leaves no Ghostscript or qpdf behind within 5 s; each ran under a memory limit', async () => {
  const base = await freshApp();
  const files = await makePdfCorpus(work);
  // Sixty scanned pages: a compression that runs for many seconds.
  const heavy = path.join(work, 'heavy.pdf');
  await run('qpdf', ['--empty', '--pages', ...Array(60).fill(files.scan), '--', heavy]);
  const data = await fs.readFile(heavy);
  const boundary = `----orphan${randomBytes(6).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="level"\r\n\r\nextreme\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="mare.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const req = http.request(`${base}/api/compress-pdf`, {
    method: 'POST',
    headers: { cookie: dan.cookie, origin: new URL(base).origin, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + data.length + tail.length) },
  });
  req.on('error', () => undefined);
  // An early answer (a refusal) would explain a Ghostscript that never starts: it goes in the failure.
  let answered: string | null = null;
  req.on('response', (r) => {
    let body = '';
    r.on('data', (c: Buffer) => (body += c.toString()));
    r.on('end', () => (answered = `${r.statusCode} ${body.slice(0, 300)}`));
  });
  req.end(Buffer.concat([head, data, tail]));

  // Ghostscript must start; the memory limit is read from a Ghostscript or qpdf of this upload in
  // the very scan that finds it: a pass may end between two scans of /proc (a CI run once saw
  // Ghostscript start, then found no tool left by the next scan).
  let limits: string | null = null;
  let ghostscriptSeen = false;
  let seen: Array<{ pid: number; name: string }> = [];
  const deadline = Date.now() + 30_000;
  while (limits === null || !ghostscriptSeen) {
    if (Date.now() > deadline) {
      throw new Error(`${ghostscriptSeen ? 'no Ghostscript or qpdf ran long enough to read its limits' : 'Ghostscript never started'}; seen: ${JSON.stringify(seen)}; answer: ${answered ?? 'none yet'}`);
    }
    seen = toolsOfThisProcess();
    ghostscriptSeen ||= seen.some((t) => t.name === 'gs');
    const tool: { pid: number; name: string } | undefined = limits === null ? seen[0] : undefined;
    if (tool) limits = await fs.readFile(`/proc/${tool.pid}/limits`, 'utf8').catch(() => null);
    if (limits === null || !ghostscriptSeen) await new Promise((r) => setTimeout(r, 20));
  }
  const addressSpace = limits.split('\n').find((l) => l.startsWith('Max address space'))!;
  expect(addressSpace.split(/\s{2,}/)[1]).toBe(String(config.limits.childMemoryMb * 1024 * 1024));

  const left = Date.now();
  req.destroy();
  let remaining = await processesWorkingIn(uploads);
  while (remaining.length && Date.now() - left < 5_000) {
    await new Promise((r) => setTimeout(r, 100));
    remaining = await processesWorkingIn(uploads);
  }
  expect(remaining).toEqual([]);
  await until(() => heavyWork.pdf.active === 0, 'the PDF slot given back');
  // And the upload's temp directory went with the request.
  for (let i = 0; i < 50 && (await fs.readdir(uploads)).length; i++) await new Promise((r) => setTimeout(r, 100));
  expect(await fs.readdir(uploads)).toEqual([]);
}, 90_000);

test('a selection export past the per-user cap is a 429 with Retry-After; a colleague is still served', async () => {
  const base = await freshApp();
  const exportAs = (cookie: string) =>
    fetch(`${base}/api/geoportal/export`, {
      method: 'POST',
      headers: { cookie, origin: new URL(base).origin, 'content-type': 'application/json' },
      // An id the store does not hold: past the caps the route answers 404, so no ogr2ogr runs.
      body: JSON.stringify({ format: 'gpkg', featureIds: ['00000000-0000-4000-8000-000000000000'] }),
    });
  const held = await Promise.all(Array.from({ length: config.limits.selectionExport.perUser }, () => heavyWork.selectionExport.acquire(`u:${dan.data.user.id}`)));
  try {
    await expectRefused(await exportAs(dan.cookie), /Aveți deja un export al selecției/);
    expect((await exportAs(ana.cookie)).status).toBe(404);
  } finally {
    for (const release of held) release();
  }
  expect((await exportAs(dan.cookie)).status).toBe(404);
  expect(heavyWork.selectionExport.active).toBe(0);
});

test('an ogr2ogr whose caller aborts is gone within 5 s, and it ran under a data limit at a lower CPU priority', async () => {
  const out = path.join(work, 'abandoned.gpkg');
  const controller = new AbortController();
  let pid = 0;
  // A statement that runs for a minute: ogr2ogr sits waiting on the store when its caller leaves.
  const conversion = ogr2ogr(['-f', 'GPKG', out, pgDatasource(), '-sql', 'SELECT pg_sleep(60) AS waited'], {
    signal: controller.signal,
    onSpawn: (p) => (pid = p),
  });
  const outcome = conversion.then(
    () => 'finished',
    (err: Error) => err.message,
  );
  try {
    await until(() => pid !== 0, 'ogr2ogr started');
    // prlimit sets the limit on itself, then execs ogr2ogr in place: read the limits once it has.
    const program = async () => (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')[0];
    for (let i = 0; i < 100 && !(await program()).endsWith('ogr2ogr'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await program()).toMatch(/ogr2ogr$/);
    const limits = await fs.readFile(`/proc/${pid}/limits`, 'utf8');
    const data = limits.split('\n').find((l) => l.startsWith('Max data size'))!;
    expect(data.split(/\s{2,}/)[1]).toBe(String(config.limits.childMemoryMb * 1024 * 1024));
    // /proc/<pid>/stat: the 19th field is the niceness (the command, field 2, holds no spaces here).
    const stat = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(' ');
    expect(Number(stat[18])).toBe(HEAVY_CHILD_NICE);
  } finally {
    controller.abort();
  }
  const left = Date.now();
  expect(await outcome).toMatch(/ogr2ogr failed \(cancelled\)/);
  while (Date.now() - left < 5_000 && (await fs.stat(`/proc/${pid}`).then(() => true, () => false))) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await fs.stat(`/proc/${pid}`).then(() => 'still running', () => 'gone')).toBe('gone');
}, 30_000);
