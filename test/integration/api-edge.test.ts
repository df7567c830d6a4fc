/**
 * The API's edge as a client meets it (CONTRACT.md sections 1 and 5): public routes, the error
 * body everywhere, validation details, unknown routes, body limit, rate limit, bearer guards and
 * the OpenAPI document. The app is built in-process on the real database; sessions are real rows.
 */
import type { Server } from 'node:http';
import { Router } from 'express';
import { z } from 'zod';
import { listenApp } from '../helpers/appServer';

process.env.RATE_LIMIT_PER_MINUTE = '40';

const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const store = createStore();
const { defineRoute } = await import('../../api/http/route');
const { errorMapper } = await import('../../api/http/errorMapper');
const { createTestSessionRecord } = await import('../helpers/session');
const { closePool } = await import('../../domain/db/pool');

let server: Server;
let base: string;
let dan: Awaited<ReturnType<typeof createTestSessionRecord>>;

beforeAll(async () => {
  ({ server, base } = await listenApp(createApp({ store })));
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
});

afterAll(async () => {
  await dan.end();
  await new Promise((r) => server.close(r));
  await store.close();
  await closePool();
});

function expectErrorBody(body: any, code: string) {
  expect(body).toEqual(expect.objectContaining({ error: code, message: expect.any(String) }));
  expect(body.message.length).toBeGreaterThan(5);
}

test('GET /api/version is public and answers the build fields', async () => {
  const res = await fetch(`${base}/api/version`);
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(Object.keys(body).sort()).toEqual(['buildTime', 'commit', 'commitShort', 'cutover', 'modules', 'nextVersion', 'nodeEnv']);
  // Spec 9.5: the tag manager and the vault are at module version 0.2.0.
  expect(body.modules).toEqual({ tags: '0.2.0', vault: '0.2.0' });
  expect(typeof body.cutover).toBe('boolean');
  expect(body.commitShort.length).toBeLessThanOrEqual(body.commit.length);
});

test('an unknown /api route answers 401 without a session and 404 with one', async () => {
  const anon = await fetch(`${base}/api/anything`);
  expect(anon.status).toBe(401);
  expectErrorBody(await anon.json(), 'unauthorized');
  const signed = await fetch(`${base}/api/anything`, { headers: { cookie: dan.cookie } });
  expect(signed.status).toBe(404);
  expectErrorBody(await signed.json(), 'not_found');
});

test('malformed JSON is a 400 bad_request with details, not a 500', async () => {
  const res = await fetch(`${base}/api/landreg/sync`, {
    method: 'POST',
    headers: { cookie: dan.cookie, 'content-type': 'application/json' },
    body: '{"siruta": 12,',
  });
  expect(res.status).toBe(400);
  const body = await res.json();
  expectErrorBody(body, 'bad_request');
  expect(Array.isArray(body.details)).toBe(true);
});

test('a path segment with broken percent-encoding is a 400 bad_request on every kind of route, signed in or not', async () => {
  // Decoded by Express's router before any route runs: API, OGC and tile routes alike.
  const paths = ['/ogc/collections/%FF', '/ogc/collections/parcels/items/%FF', '/tiles/%FF/1/2/3', '/api/registratura/entries/%E0%A4%A', '/api/tokens/%FF'];
  for (const [path, headers] of paths.flatMap((p) => [[p, {}], [p, { cookie: dan.cookie }]] as const)) {
    const res = await fetch(`${base}${path}`, { method: path.startsWith('/api/tokens') ? 'DELETE' : 'GET', headers });
    expect({ path, status: res.status }).toEqual({ path, status: 400 });
    const body = await res.json();
    expectErrorBody(body, 'bad_request');
    expect(body.details).toEqual([{ field: '(path)', problem: expect.any(String) }]);
  }
});

test('a body that fails validation lists each bad field', async () => {
  const res = await fetch(`${base}/api/landreg/sync`, {
    method: 'POST',
    headers: { cookie: dan.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ siruta: 'not-a-number' }),
  });
  expect(res.status).toBe(400);
  const body = await res.json();
  expectErrorBody(body, 'bad_request');
  expect(body.details.map((d: { field: string }) => d.field)).toContain('siruta');
});

test('a JSON body over 25 MB is refused with 413 payload_too_large', async () => {
  const big = JSON.stringify({ value: 'x'.repeat(26 * 1024 * 1024) });
  const res = await fetch(`${base}/api/landreg/sync`, {
    method: 'POST',
    headers: { cookie: dan.cookie, 'content-type': 'application/json' },
    body: big,
  });
  expect(res.status).toBe(413);
  expectErrorBody(await res.json(), 'payload_too_large');
});

test('cron routes need the bearer token', async () => {
  const none = await fetch(`${base}/api/landreg/auto-refresh`, { method: 'POST' });
  expect(none.status).toBe(401);
  expectErrorBody(await none.json(), 'unauthorized');
  const wrong = await fetch(`${base}/api/landreg/auto-refresh`, { method: 'POST', headers: { authorization: 'Bearer nope' } });
  expect(wrong.status).toBe(401);
});

test('the OpenAPI document is public, 3.1, and documents the routes with their schemas', async () => {
  const res = await fetch(`${base}/api/openapi.json`);
  expect(res.status).toBe(200);
  const doc = await res.json();
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.paths['/api/version'].get).toBeDefined();
  expect(doc.paths['/api/auth/session'].get).toBeDefined();
  const sync = doc.paths['/api/landreg/sync'].post;
  expect(sync.requestBody.content['application/json'].schema).toBeDefined();
  expect(sync.responses['400']).toBeDefined();
  // A file answer is documented as binary under each media type it can have.
  const download = doc.paths['/api/landreg/export-download'].get.responses['200'].content;
  expect(Object.keys(download).sort()).toEqual(['application/geopackage+sqlite3', 'application/zip']);
  expect(download['application/zip'].schema).toMatchObject({ type: 'string', format: 'binary' });
  expect(doc.components.schemas.Error.properties).toEqual(
    expect.objectContaining({ error: expect.anything(), message: expect.anything() }),
  );
});

test('an unexpected failure is a 500 internal_error whose hint carries the cause', async () => {
  const router = Router();
  defineRoute(
    router,
    { method: 'get', path: '/api/__edge-test/boom', summary: 'edge test', tags: ['test'], auth: 'public' },
    () => {
      throw new Error('disk on fire '.repeat(40));
    },
  );
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/__edge-test/echo',
      summary: 'edge test',
      tags: ['test'],
      auth: 'public',
      query: z.object({ n: z.coerce.number().int().min(1) }),
    },
    ({ query }) => ({ n: query.n }),
  );
  const express = (await import('express')).default;
  const app = express().use(router).use(errorMapper);
  const { server: s, base: url } = await listenApp(app);
  try {
    const boom = await fetch(`${url}/api/__edge-test/boom`);
    expect(boom.status).toBe(500);
    const body = await boom.json();
    expectErrorBody(body, 'internal_error');
    expect(body.hint.startsWith('disk on fire')).toBe(true);
    expect(body.hint.length).toBe(200);
    const bad = await fetch(`${url}/api/__edge-test/echo?n=zero`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).details[0].field).toBe('n');
    expect(await (await fetch(`${url}/api/__edge-test/echo?n=3`)).json()).toEqual({ n: 3 });
  } finally {
    await new Promise((r) => s.close(r));
  }
});

// Last: it spends this user's budget for the minute.
test('over the per-user rate limit the API answers 429 with Retry-After', async () => {
  let limited: Response | undefined;
  for (let i = 0; i < 60 && !limited; i++) {
    const res = await fetch(`${base}/api/auth/session`, { headers: { cookie: dan.cookie } });
    if (res.status === 429) limited = res;
    else await res.arrayBuffer();
  }
  expect(limited).toBeDefined();
  expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  expectErrorBody(await limited!.json(), 'rate_limited');
});
