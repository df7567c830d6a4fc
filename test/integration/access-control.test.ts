/**
 * Who may change what (issue 25), on the whole API in process with real sessions in the stack's
 * database:
 *  - every route that changes the office's global configuration answers 403 `forbidden` (the
 *    CONTRACT.md body) to a signed-in user who is not an administrator, before reading the body,
 *    and lets an administrator through to validation;
 *  - a cookie-signed write must come from our own origin (`Origin` or `Sec-Fetch-Site`): another
 *    site's origin or none → 403, and the write did not happen; the same origin → 2xx; a bearer
 *    call (a tool, cron) carries no Origin and is not refused for it; GETs are untouched.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import http from 'node:http';
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { createApp } from '../../api/app';
import { createStore } from '../../domain/db/store';
import { listenApp } from '../helpers/appServer';

const store = createStore();

let server: http.Server;
let base: string;
let dan: TestSession;
let ana: TestSession;

beforeAll(async () => {
  ({ server, base } = await listenApp(createApp({ store })));
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  ana = await createTestSessionRecord({ email: 'ana@birou.ro', company: 'B', groups: ['admin'] });
});

afterAll(async () => {
  await dan?.end();
  await ana?.end();
  await new Promise((r) => server?.close(r));
  await store.close();
  await closePool();
});

async function call(method: string, path: string, opts: { who: TestSession; body?: unknown; headers?: Record<string, string> }) {
  const headers: Record<string, string> = { cookie: opts.who.cookie, ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const NO_RULE = '00000000-0000-4000-8000-000000000000';

describe('the office’s global configuration is for administrators', () => {
  // [method, path, a body an administrator's request fails validation with (no side effect)]
  const ADMIN_ONLY: Array<[string, string, unknown]> = [
    ['POST', '/api/landreg/sync-rules', { scope: 'nowhere' }],
    ['POST', '/api/landreg/sync-rules/bulk', {}],
    ['PATCH', '/api/landreg/sync-rules/scheduler', { defaultFrequency: 'yearly' }],
    ['PATCH', `/api/landreg/sync-rules/${NO_RULE}`, { priority: 0 }],
    ['DELETE', `/api/landreg/sync-rules/${NO_RULE}`, undefined],
    ['POST', '/api/landreg/weekend-sync', { action: 'pause' }],
    ['POST', '/api/landreg/weekend-sync', { action: 'resume' }],
    ['POST', '/api/landreg/weekend-sync', { action: 'reset' }],
    ['POST', '/api/landreg/weekend-sync', { action: 'trigger' }],
    ['POST', '/api/landreg/weekend-sync', { action: 'add', siruta: 1 }],
    ['POST', '/api/landreg/weekend-sync', { action: 'remove', siruta: 1 }],
    ['POST', '/api/manictime', { mode: 'push' }],
    ['POST', '/api/manictime', { mode: 'both' }],
    ['POST', '/api/manictime', { mode: 'pull', resolutions: { 'B-0001|faza|': 'db' } }],
    ['DELETE', `/api/tags/${NO_RULE}`, undefined],
    ['POST', '/api/geoportal/tiles/rebuild', undefined],
  ];

  test.each(ADMIN_ONLY)('%s %s → 403 forbidden for a user who is not an administrator; nothing changed', async (method, path, body) => {
    const before = await getPool().query(`SELECT (SELECT count(*) FROM gis_sync_rules)::int AS rules, (SELECT count(*) FROM weekend_sync_queue)::int AS queue`);
    const r = await call(method, path, { who: dan, body });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'forbidden', message: expect.stringMatching(/^Doar administratorii /) });
    const after = await getPool().query(`SELECT (SELECT count(*) FROM gis_sync_rules)::int AS rules, (SELECT count(*) FROM weekend_sync_queue)::int AS queue`);
    expect(after.rows).toEqual(before.rows);
  });

  test.each(ADMIN_ONLY.filter(([, path, body]) => body !== undefined && !path.includes('weekend-sync') && !path.includes('manictime')))(
    '%s %s lets an administrator through to validation (400)',
    async (method, path, body) => {
      const r = await call(method, path, { who: ana, body });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('bad_request');
    },
  );

  test('an administrator deleting a tag that does not exist is told it does not exist (past the guard)', async () => {
    expect((await call('DELETE', `/api/tags/${NO_RULE}`, { who: ana })).status).toBe(404);
  });

  test('reads stay open to every signed-in user', async () => {
    for (const path of ['/api/landreg/sync-rules', '/api/landreg/sync-rules/scheduler', '/api/landreg/weekend-sync', '/api/tags']) {
      expect([path, (await call('GET', path, { who: dan })).status]).toEqual([path, 200]);
    }
  });
});

describe('cookie-signed writes come from our own pages', () => {
  const markRead = { all: true };

  test('another site’s Origin → 403 with the contract body; GETs are untouched', async () => {
    const r = await call('PATCH', '/api/notifications/app', { who: dan, body: markRead, headers: { origin: 'https://evil.example' } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'forbidden', message: expect.stringContaining('Origin') });
    const cross = await call('PATCH', '/api/notifications/app', { who: dan, body: markRead, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(cross.status).toBe(403);
    // `null` is what a sandboxed frame or a data: page sends.
    expect((await call('PATCH', '/api/notifications/app', { who: dan, body: markRead, headers: { origin: 'null' } })).status).toBe(403);
    expect((await call('GET', '/api/notifications/app', { who: dan, headers: { origin: 'https://evil.example' } })).status).toBe(200);
  });

  test('our origin (the address called, or the public URL) or Sec-Fetch-Site: same-origin → 2xx', async () => {
    expect((await call('PATCH', '/api/notifications/app', { who: dan, body: markRead, headers: { origin: base } })).status).toBe(200);
    expect((await call('PATCH', '/api/notifications/app', { who: dan, body: markRead, headers: { origin: new URL(config.app.publicUrl).origin } })).status).toBe(200);
    expect((await call('PATCH', '/api/notifications/app', { who: dan, body: markRead, headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
  });

  test('no Origin at all (a cookie replayed by a script) → 403, and the write did not happen', async () => {
    const body = JSON.stringify({ namespace: 'csrf', key: 'k', value: 1 });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${base}/api/storage`, {
        method: 'PUT',
        headers: { cookie: dan.cookie, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
    expect((await call('GET', '/api/storage?namespace=csrf', { who: dan })).body.items).toEqual([]);
  });

  test('sign-out from another site is refused: the session stays', async () => {
    const res = await fetch(`${base}/auth/logout`, { method: 'POST', headers: { cookie: ana.cookie, origin: 'https://evil.example' }, redirect: 'manual' });
    expect(res.status).toBe(403);
    expect((await call('GET', '/api/auth/session', { who: ana })).status).toBe(200);
  });

  test('a bearer-token call (an external tool) needs no Origin', async () => {
    const res = await fetch(`${base}/api/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${config.tokens.addressBookApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({}),
    });
    // Past the origin check and the token: the empty contact fails validation, nothing is written.
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('bad_request');
  });
});
