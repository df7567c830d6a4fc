/**
 * Issue 13, deliverables 5 and 7: `export-local` builds inside the web process are bounded (one
 * per user, a global cap, 429 with a Romanian message beyond) and a client that goes away stops
 * its build (the ogr2ogr processes are killed, the temporary directory removed, the slot freed).
 *
 * The real GDAL runs behind a small wrapper (OGR2OGR) that records each process id and, while the
 * test asks for it, waits a few seconds before becoming ogr2ogr (exec: one process throughout),
 * so a build is reliably "in the middle" when the test acts on it.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { listenApp } from '../helpers/appServer';

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'export-local-limits-'));
const buildRoot = path.join(root, 'builds');
const spawnLog = path.join(root, 'spawns.log');
const slowFlag = path.join(root, 'slow');
const wrapper = path.join(root, 'ogr2ogr');
await fs.mkdir(buildRoot);
await fs.writeFile(
  wrapper,
  `#!/bin/sh
echo $$ >> '${spawnLog}'
if [ -e '${slowFlag}' ]; then
  exec python3 -c 'import os, sys, time; time.sleep(3); os.execvp("ogr2ogr", ["ogr2ogr"] + sys.argv[1:])' "$@"
fi
exec ogr2ogr "$@"
`,
  { mode: 0o755 },
);
process.env.OGR2OGR = wrapper;
process.env.EXPORT_TMP_DIR = buildRoot;
process.env.EXPORT_LOCAL_MAX_CONCURRENT = '2';
process.env.RATE_LIMIT_PER_MINUTE = '1000';

const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const store = createStore();
const { getPool, closePool } = await import('../../domain/db/pool');
const { createTestSessionRecord } = await import('../helpers/session');
const { seedExportUat, clearExportUat } = await import('../helpers/exportSeed');
const { until } = await import('../helpers/wait');
const { isAlive } = await import('../helpers/stackProcs');

const SIRUTA = 990873;
let server: Server;
let base: string;
const users: Array<Awaited<ReturnType<typeof createTestSessionRecord>>> = [];

beforeAll(async () => {
  await seedExportUat(getPool(), { siruta: SIRUTA, name: 'Valea Lungă', county: 'Ilfov', parcels: 300, noGeometry: 5 });
  for (const email of ['dan@birou.ro', 'ioana@birou.ro', 'mihai@birou.ro']) users.push(await createTestSessionRecord({ email, company: 'B' }));
  ({ server, base } = await listenApp(createApp({ store })));
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await Promise.allSettled(users.map((u) => u.end()));
  await clearExportUat(getPool(), SIRUTA);
  await store.close();
  await closePool();
  await fs.rm(root, { recursive: true, force: true });
});

const spawned = async (): Promise<number[]> =>
  (await fs.readFile(spawnLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);

function exportLocal(cookie: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}/api/landreg/export-local`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ siruta: SIRUTA, mode: 'magic' }),
    signal,
  });
}

/** Starts a build and waits until its first ogr2ogr runs; answers how to hang up. */
async function startBuilding(cookie: string): Promise<{ hangUp: () => void; pid: number }> {
  const before = (await spawned()).length;
  const ctl = new AbortController();
  exportLocal(cookie, ctl.signal).catch(() => undefined);
  const pids = await until('the build to start ogr2ogr', async () => {
    const now = await spawned();
    return now.length > before ? now : undefined;
  }, 30_000);
  return { hangUp: () => ctl.abort(), pid: pids[before] };
}

/** Nothing of a build is left: its processes are gone and the temp root is empty. */
async function nothingLeft(pids: number[]): Promise<void> {
  await until('the build to be stopped and cleaned up', async () => {
    const left = await fs.readdir(buildRoot);
    return left.length === 0 && pids.every((p) => !isAlive(p));
  }, 30_000);
}

test('a client that hangs up mid-build stops it: ogr2ogr killed, no temporary files, the slot free again', async () => {
  await fs.writeFile(slowFlag, '');
  await fs.rm(spawnLog, { force: true });
  const build = await startBuilding(users[0].cookie);
  expect(isAlive(build.pid)).toBe(true);
  expect((await fs.readdir(buildRoot)).length).toBe(1);
  build.hangUp();
  await nothingLeft([build.pid]);
  const cancelled = (await spawned()).length;

  // The same user builds again at once (the slot was given back), this time to the end.
  await fs.rm(slowFlag);
  await fs.rm(spawnLog);
  const res = await exportLocal(users[0].cookie);
  expect(res.status).toBe(200);
  expect(Buffer.from(await res.arrayBuffer()).subarray(0, 2).toString()).toBe('PK');
  const full = (await spawned()).length;
  // The cancelled build stopped before it had run every conversion of a whole one.
  expect(cancelled).toBeLessThan(full);
  await nothingLeft(await spawned());
}, 90_000);

test('one build per user and a global cap: beyond them 429 with a Romanian message and Retry-After', async () => {
  await fs.writeFile(slowFlag, '');
  const [dan, ioana, mihai] = users;
  const first = await startBuilding(dan.cookie);
  try {
    const twin = await exportLocal(dan.cookie);
    expect(twin.status).toBe(429);
    expect(twin.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await twin.json()).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('export local în lucru') });

    const second = await startBuilding(ioana.cookie);
    try {
      const third = await exportLocal(mihai.cookie);
      expect(third.status).toBe(429);
      expect(await third.json()).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('prea multe exporturi locale') });
    } finally {
      second.hangUp();
    }
  } finally {
    first.hangUp();
    await fs.rm(slowFlag, { force: true });
  }
  await nothingLeft(await spawned());
  // Both slots are free again.
  const again = await exportLocal(mihai.cookie);
  expect(again.status).toBe(200);
  await again.arrayBuffer();
}, 90_000);
