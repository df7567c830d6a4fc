/**
 * The outside-call base (issue 28 item 5, domain/outside/call.ts):
 * - one rate limiter per outside service shared by every process: two processes' limiters on one
 *   store together stay within the service's rate (a per-process limiter would let twice through);
 * - retries only for idempotent calls and only outside a Temporal activity (whose retry policy
 *   covers it), counted by the land-registry simulator serving a failing portal;
 * - the caller leaving stops the call: no retry and no further request;
 * - one session mechanism: when the portal has forgotten the session (its `/__sim/reset`), the
 *   land-registry and the certificate portal clients each sign in once more through the base and
 *   send the refused exchange once again; a POST that adds to the CF cart lands once.
 * Scratch database (its own `outside_call_pace` rows), in-process land-registry and certificate
 * portal simulators.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type pg from 'pg';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { LandregSimulator } from '../../simulators/landreg/server';
import type { CfportalSimulator } from '../../simulators/cfportal/server';

// Fast backoff: the retries are counted, not waited for.
process.env.LANDREG_RETRY_BASE_DELAY_MS = '20';

const { migrate } = await import('../../domain/db/migrate');
const { closePool, createPool } = await import('../../domain/db/pool');
const { config } = await import('../../domain/config');
const { RateLimiter, SharedPace } = await import('../../domain/outside/rateLimiter');
const { withOutsideCaller } = await import('../../domain/outside/caller');
const { LandregClient } = await import('../../domain/landreg/client');
const { PortalHttpError } = await import('../../domain/landreg/errors');
const { startLandregSimulator } = await import('../../simulators/landreg/server');
const { startCfportalSimulator } = await import('../../simulators/cfportal/server');
const { CfportalClient } = await import('../../domain/cfportal/client');
const { scratchDatabase } = await import('../helpers/scratchDb');

const scratch = scratchDatabase('geoportal_outside_call');
let poolA: pg.Pool;
let poolB: pg.Pool;
let sim: LandregSimulator;
let cfSim: CfportalSimulator;
const CF_ACCOUNT = { username: 'birou-sesiune', password: 'parola-sesiune' };

/** Requests the portal received: answered by a route, or by the failure the test set. */
async function simCalls(): Promise<number> {
  const { counts, faulted } = (await (await fetch(`${sim.url}/__sim/requests`)).json()) as { counts: Record<string, number>; faulted: number };
  return Object.values(counts).reduce((a, b) => a + b, 0) + faulted;
}

async function failEveryCall(): Promise<void> {
  await fetch(`${sim.url}/__sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ errorRate: 1 }) });
  await fetch(`${sim.url}/__sim/requests`, { method: 'DELETE' });
}

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  // Two pools stand for two processes (the API and a worker): nothing in memory is shared.
  poolA = createPool(scratch.url, 4);
  poolB = createPool(scratch.url, 4);
  sim = await startLandregSimulator({ port: 0 });
  cfSim = await startCfportalSimulator({ port: 0, ...CF_ACCOUNT });
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await cfSim?.close();
  await poolA?.end();
  await poolB?.end();
  await closePool();
  await scratch.drop();
});

describe('one rate limiter per outside service, shared by the processes', () => {
  test('two processes at 10 calls/s each: together at most a second of burst plus 10 calls in any second', async () => {
    const RATE = 10;
    const grants: number[] = [];
    const processA = new RateLimiter(new SharedPace(poolA, 'landreg', RATE));
    const processB = new RateLimiter(new SharedPace(poolB, 'landreg', RATE));
    const calls = (l: InstanceType<typeof RateLimiter>) => Array.from({ length: 15 }, () => l.take(undefined).then(() => grants.push(Date.now())));
    await Promise.all([...calls(processA), ...calls(processB)]);
    grants.sort((a, b) => a - b);
    expect(grants).toHaveLength(30);
    // Any 21 consecutive grants span at least a second (less a timer's slack): a per-process limiter
    // lets both bursts through at once (20 at the start) and then twice the rate.
    for (let i = 0; i + 2 * RATE < grants.length; i++) expect(grants[i + 2 * RATE] - grants[i]).toBeGreaterThanOrEqual(950);
    const { rows } = await poolA.query<{ service: string }>(`SELECT service FROM outside_call_pace`);
    expect(rows.map((r) => r.service)).toEqual(['landreg']);
  }, 30_000);
});

describe('retries: only idempotent calls, only outside a Temporal activity', () => {
  const client = () => new LandregClient({ db: poolA, baseUrl: sim.url, requestsPerSecond: 0 });

  test('a GET outside an activity (an API request) is tried again on a 5xx: 1 + LANDREG_RETRY_ATTEMPTS requests, then 502', async () => {
    await failEveryCall();
    const err = await client().get('/account').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalHttpError);
    expect(err).toMatchObject({ status: 502, code: 'upstream_error', message: 'Portalul de cadastru a răspuns cu o eroare.' });
    expect(await simCalls()).toBe(1 + config.landreg.retryAttempts);
  });

  test('a POST is never tried again', async () => {
    await failEveryCall();
    await expect(client().call('POST', '/rgi/actor-context', { form: { workspaceId: 1 } })).rejects.toBeInstanceOf(PortalHttpError);
    expect(await simCalls()).toBe(1);
  });

  test('inside a Temporal activity the same GET is sent once: the activity retry policy does the rest', async () => {
    await failEveryCall();
    const env = new MockActivityEnvironment();
    await expect(env.run(() => client().get('/account'))).rejects.toBeInstanceOf(PortalHttpError);
    expect(await simCalls()).toBe(1);
  });

  test('a caller that has left stops the call: its reason comes back and no request is sent', async () => {
    await failEveryCall();
    const gone = new AbortController();
    gone.abort(new Error('client left'));
    await expect(withOutsideCaller({ key: 'u:dan', signal: gone.signal }, () => client().get('/account'))).rejects.toThrow('client left');
    expect(await simCalls()).toBe(0);
  });
});

describe('session refresh: one mechanism in the base for every client', () => {
  /** A simulator's calls per route (`route:<METHOD> <path>`), answered or refused. */
  async function routeCalls(url: string): Promise<Record<string, number>> {
    return ((await (await fetch(`${url}/__sim/requests`)).json()) as { counts: Record<string, number> }).counts;
  }
  // The retry tests above leave the land-registry portal failing every call.
  beforeEach(async () => {
    await fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' });
  });

  /** The portal forgets every session, as after an idle expiry or a restart of the portal. */
  async function expireSessions(url: string): Promise<void> {
    await fetch(`${url}/__sim/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await fetch(`${url}/__sim/requests`, { method: 'DELETE' });
  }

  test('land-registry portal: a call on an expired shared session signs in once and is answered', async () => {
    const client = new LandregClient({ db: poolA, baseUrl: sim.url, requestsPerSecond: 0 });
    await client.connect();
    await expireSessions(sim.url);
    const account = await client.get<{ username: string }>('/account');
    expect(account.username).toBe(config.landreg.username);
    expect(await routeCalls(sim.url)).toEqual({ 'route:GET /eterra/api/account': 2, 'route:POST /eterra/api/authentication': 1 });
    // The new session is the shared one: the next call needs no sign-in.
    await client.get('/account');
    expect((await routeCalls(sim.url))['route:POST /eterra/api/authentication']).toBe(1);
  });

  test('certificate portal: an expired account session signs in once; the refused add to the cart is sent again and lands once', async () => {
    const client = new CfportalClient(async () => CF_ACCOUNT, { db: poolA, baseUrl: cfSim.url });
    expect(await client.credits()).toBeGreaterThan(0);
    await expireSessions(cfSim.url);
    const counties = await client.counties();
    expect(await routeCalls(cfSim.url)).toEqual({ 'route:GET /cf/api/counties': 2, 'route:POST /cf/api/login': 1 });
    const uats = await client.uats(counties[0].id);
    await expireSessions(cfSim.url);
    const item = await client.addToCart({ countyId: counties[0].id, uatId: uats[0].id, cadastralNumber: '50123' });
    expect(item.cadastralNumber).toBe('50123');
    expect(await routeCalls(cfSim.url)).toEqual({ 'route:POST /cf/api/cart/items': 2, 'route:POST /cf/api/login': 1 });
    const truth = (await (await fetch(`${cfSim.url}/__sim/truth?account=${CF_ACCOUNT.username}`)).json()) as { cart: Array<{ cadastralNumber: string }> };
    expect(truth.cart.map((i) => i.cadastralNumber)).toEqual(['50123']);
  });
});
