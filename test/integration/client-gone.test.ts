/**
 * A client that leaves before its request reaches the work it asked for (while its session is
 * looked up, or while it waits for a slot) gives back everything that work would have taken. A
 * `close` listener added after the client left never runs: the large-body slot, the PDF tools'
 * slot and the upload's slot, disk reservation and temp directory were each held until the
 * process restarted, and the user got 429 on that tool from then on; an OGC page QGIS gave up
 * on while queued waited for its turn and was read all the same; a page's loader ran to the end
 * (portal calls included) with a `request.signal` that never aborted.
 *
 * The whole API in process on a scratch database. The session lookup is held by a lock on
 * `app_sessions` in another transaction (a session the app has not cached yet), the client
 * leaves, then the lock goes and the request goes on without it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startOfficeApp, type OfficeApp } from '../helpers/officeApp';

let app: OfficeApp;
let locker: pg.Client;
let uploads: string;
/** The app's own modules, loaded after the helper pointed the process at the scratch database. */
let heavyWork: typeof import('../../api/http/rateLimit').heavyWork;
let clearSessionCache: () => void;

beforeAll(async () => {
  uploads = await fs.mkdtemp(path.join(os.tmpdir(), 'client-gone-'));
  app = await startOfficeApp('geoportal_client_gone', {
    pdf: { tmpDir: uploads },
    // The pages as api/server.ts mounts them (built by `npm run build:web`).
    web: async (store, services) => {
      const { pageGuard } = await import('../../api/auth');
      const { createWebHandlers } = await import('../../api/web');
      return [pageGuard, ...(await createWebHandlers(store, services))];
    },
  });
  ({ heavyWork } = await import('../../api/http/rateLimit'));
  ({ clearSessionCache } = await import('../../api/auth/sessionStore'));
  locker = new pg.Client({ connectionString: app.dbUrl });
  await locker.connect();
}, 60_000);

afterAll(async () => {
  await locker?.end();
  await app?.close();
  if (uploads) await fs.rm(uploads, { recursive: true, force: true });
});

/** Waits until `check` holds, up to `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (await check()) return;
}

/**
 * Sends the head and the start of a body, leaves while the server waits for the session (held
 * by a lock), then lets the server go on.
 */
async function leaveWhileSessionIsLookedUp(method: string, url: string, headers: Record<string, string | number>, start: string): Promise<void> {
  // The app keeps the session it has just written: it must read the row again.
  clearSessionCache();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE app_sessions IN ACCESS EXCLUSIVE MODE');
  try {
    const req = http.request(`${app.base}${url}`, { method, headers: { origin: app.base, ...headers } });
    req.on('error', () => undefined);
    if (start) req.write(start);
    else req.flushHeaders();
    // Inside a transaction the activity view is a snapshot taken at its first read: renewed each time.
    const waiting = async () => {
      await locker.query('SELECT pg_stat_clear_snapshot()');
      const r = await locker.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'SELECT id, data%app_sessions%'`,
      );
      return r.rows[0].n > 0;
    };
    await until(waiting);
    expect(await waiting()).toBe(true);
    req.destroy();
    // The server sees the connection close while the lookup still waits.
    await sleep(300);
  } finally {
    await locker.query('COMMIT');
  }
  // The request goes on without its client: a moment to reach its slots and the temp disk (what
  // it holds then is what the assertions look at; before the fix it was held for good).
  await sleep(1_000);
}

describe('a client gone before its request reached the work', () => {
  test('a large JSON body: the slot is given back, and the same user’s next large body is stored (it was 429 for good)', async () => {
    const dan = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
    expect(heavyWork.jsonBody.active).toBe(0);
    const big = JSON.stringify({ namespace: 'mare', key: 'k', value: 'a'.repeat(600_000) });
    await leaveWhileSessionIsLookedUp('PUT', '/api/storage', { cookie: dan, 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }, big.slice(0, 1000));
    await until(() => heavyWork.jsonBody.active === 0);
    expect(heavyWork.jsonBody.active).toBe(0);
    const next = await app.call('PUT', '/api/storage', { auth: dan, body: big });
    expect(next.status).toBe(200);
  });

  test('a PDF upload: the PDF and upload slots, the disk reservation and the temp directory are let go; the next request is answered, not 429', async () => {
    const ana = (await app.session({ email: 'ana@birou.ro', company: 'B' })).cookie;
    expect([heavyWork.pdf.active, heavyWork.upload.active]).toEqual([0, 0]);
    const head = '--x\r\nContent-Disposition: form-data; name="file"; filename="plan.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n';
    await leaveWhileSessionIsLookedUp('POST', '/api/compress-pdf', { cookie: ana, 'content-type': 'multipart/form-data; boundary=x', 'content-length': 5_000_000 }, head);
    await until(async () => heavyWork.pdf.active === 0 && heavyWork.upload.active === 0 && (await fs.readdir(uploads)).length === 0);
    expect([heavyWork.pdf.active, heavyWork.upload.active]).toEqual([0, 0]);
    expect(await fs.readdir(uploads)).toEqual([]);
    // Her next request reaches the tool: a body that is no upload is a 400 that says so.
    const next = await fetch(`${app.base}/api/compress-pdf`, { method: 'POST', headers: { cookie: ana, 'content-type': 'text/plain' }, body: 'x' });
    expect(next.status).toBe(400);
    expect(((await next.json()) as { message: string }).message).toContain('multipart/form-data');
  });

  test('an OGC page QGIS gave up on while it waited for its turn leaves the queue at once (it waited its turn, then read the page for nobody)', async () => {
    const ion = (await app.session({ email: 'ion@birou.ro', company: 'S' })).cookie;
    // Every slot of the OGC pages held by colleagues' pages still running.
    const held: Array<() => void> = [];
    for (let i = 0; heavyWork.ogcItems.active < 6; i++) held.push(await heavyWork.ogcItems.acquire(`u:coleg-${i}`));
    try {
      const req = http.get(`${app.base}/ogc/collections/parcels/items?limit=100`, { headers: { cookie: ion } });
      req.on('error', () => undefined);
      await until(() => heavyWork.ogcItems.queued === 1);
      expect(heavyWork.ogcItems.queued).toBe(1);
      req.destroy();
      // It used to wait out its turn (up to 5 s), then take the slot and read the page for nobody.
      await until(() => heavyWork.ogcItems.queued === 0, 1_000);
      expect(heavyWork.ogcItems.queued).toBe(0);
    } finally {
      for (const release of held) release();
    }
    expect(heavyWork.ogcItems.active).toBe(0);
  });

  test('a page whose browser left while its session was read runs no loader (it ran to the end, portal calls included, for nobody)', async () => {
    const elena = (await app.session({ email: 'elena@birou.ro', company: 'B' })).cookie;
    // The sync tab's loader reads the store's UATs: held here, so a loader that runs is seen waiting.
    const uats = new pg.Client({ connectionString: app.dbUrl });
    await uats.connect();
    try {
      await uats.query('BEGIN');
      await uats.query('LOCK TABLE gis_uats IN ACCESS EXCLUSIVE MODE');
      await leaveWhileSessionIsLookedUp('GET', '/parcel-sync?uatQ=Sat', { cookie: elena }, '');
      await uats.query('SELECT pg_stat_clear_snapshot()');
      const loaders = await uats.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      expect(loaders.rows[0].n).toBe(0);
    } finally {
      await uats.query('COMMIT');
      await uats.end();
    }
    // The page itself still opens for her.
    const page = await fetch(`${app.base}/parcel-sync`, { headers: { cookie: elena } });
    expect(page.status).toBe(200);
  });
});
