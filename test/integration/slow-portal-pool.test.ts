/**
 * Issue 13, deliverables 5 and 7: a slow portal does not starve the database pool. Portal
 * sign-ins hold no transaction or lock while they wait for the portal (a lease on the session
 * row instead), so with several slow sign-ins in flight on a small pool, requests that need the
 * same pool still answer before any sign-in has come back.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Server } from 'node:http';
import { config } from '../../domain/config';
import { closePool, createPool } from '../../domain/db/pool';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import { createTestSessionRecord } from '../helpers/session';
import { createApp } from '../../api/app';
import { storeOn, type Store } from '../../domain/db/store';
import { listenApp } from '../helpers/appServer';

let store: Store;

const SIGN_INS = 4;
// Smaller than the sign-ins in flight: had each held a connection while the portal answered
// (the advisory lock of old), nothing else could have reached the database until one returned.
const pool = createPool(config.db.url, 2);
let sim: LandregSimulator;
let server: Server;
let base: string;
let user: Awaited<ReturnType<typeof createTestSessionRecord>>;

beforeAll(async () => {
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
  store = storeOn(pool);
  user = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  ({ server, base } = await listenApp(createApp({ store, outside: { landregBaseUrl: sim.url } })));
});

afterAll(async () => {
  await fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' });
  await new Promise((r) => server.close(r));
  await user.end();
  await sim.close();
  await pool.end();
  await store?.close();
  await closePool();
});

const call = (method: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { cookie: user.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test('with slow portal sign-ins in flight on a small pool, other requests keep answering', async () => {
  await fetch(`${sim.url}/__sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ latencyMs: 1500 }) });
  let signedIn = 0;
  const slow = Array.from({ length: SIGN_INS }, () =>
    call('POST', '/api/landreg/login', {}).then(async (res) => {
      signedIn++;
      return { status: res.status, body: await res.json() };
    }),
  );
  // Each answer below needs a connection of the same pool (the portal session row) or the app's.
  const during: Array<{ status: number; signedInBefore: number }> = [];
  for (let i = 0; i < 3; i++) {
    for (const path of ['/api/landreg/session', '/api/health']) {
      const res = await call('GET', path);
      await res.arrayBuffer();
      during.push({ status: res.status, signedInBefore: signedIn });
    }
  }
  expect(during.every((d) => d.status === 200)).toBe(true);
  // They answered while the portal was still working on the very first sign-in.
  expect(during.every((d) => d.signedInBefore === 0)).toBe(true);

  const done = await Promise.all(slow);
  expect(done.map((d) => d.status)).toEqual(Array(SIGN_INS).fill(200));
  expect(done.at(-1)!.body).toMatchObject({ connected: true });
}, 60_000);
