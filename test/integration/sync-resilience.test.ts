/**
 * Resilience of the parcel sync (issue 5 item 8), with the workers in a CHILD PROCESS (the same
 * wiring as workers/main.ts, on this file's own task queues, aimed at this file's in-process
 * simulator), real PostGIS and the stack's Temporal:
 *  - the worker SIGKILLed in the middle of a sync and restarted: the workflow finishes, the
 *    store equals /__sim/truth, no duplicates, every feature counted once;
 *  - a sync under errorRate 0.2 + latency + short session expiry still equals the truth;
 *  - disconnect refused (409 jobs_running) while a job runs; bad bodies → 400 with details.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import http from 'node:http';
import type pg from 'pg';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createSession, newSessionToken, sessionIdFor } from '../../api/auth/sessionStore';
import { SESSION_COOKIE } from '../../api/auth/cookies';
import { config } from '../../domain/config';
import { closePool, createPool } from '../../domain/db/pool';
import { closeTemporalClient } from '../../temporal/client';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/common/queues';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import type { layerSync } from '../../workflows/layerSync';
import { forgetUat, simulatorJson, storedLayer, truthLayer, type SyncRig } from '../helpers/landregStack';
import { startWorkerChild, type WorkerChild } from '../helpers/syncWorkerChild';
import { localEnv, runSuffix } from '../helpers/temporal';
import { until } from '../helpers/wait';
import { createApp } from '../../api/app';
import { storeOn, type Store } from '../../domain/db/store';
import { callJson, listenApp } from '../helpers/appServer';

let store: Store;

const LAYER = 'TERENURI_ACTIVE';
// Demo-scale UATs no other test file syncs: Brăila and Sfântu Gheorghe (2400 parcels, 3 pages),
// Târgu Secuiesc (1600).
const KILL_SIRUTA = 42682;
const FAULT_SIRUTA = 63394;
const API_SIRUTA = 63740;
// One page per activity, one activity at a time: the sync advances page by page, so a kill
// lands between committed pages and in the middle of an in-flight one.
const CHILD_ENV = { LANDREG_SYNC_PAGES_PER_ACTIVITY: '1', LANDREG_SYNC_PARALLEL_DOWNLOADS: '1' };

let sim: LandregSimulator;
let env: TestWorkflowEnvironment;
let db: pg.Pool;
let suffix: string;
let worker: WorkerChild | undefined;
/** The subset of SyncRig the landregStack helpers use. */
let rig: Pick<SyncRig, 'simJson'>;

const simJson = <T = any>(method: string, path: string, body?: unknown): Promise<T> => simulatorJson(sim.url)<T>(method, path, body);

function startSync(siruta: number, tag: string) {
  return env.client.workflow.start<typeof layerSync>('layerSync', {
    taskQueue: TaskQueue.store,
    workflowId: jobWorkflowId('layer-sync', `${siruta}-${tag}`),
    args: [{ siruta, layerId: LAYER, trigger: 'manual' }],
  });
}

async function expectStoreEqualsTruth(siruta: number) {
  const [stored, truth] = await Promise.all([storedLayer(db, siruta, LAYER), truthLayer(rig as SyncRig, siruta, LAYER)]);
  expect(stored.size).toBe(truth.size);
  expect([...stored.entries()].sort((a, b) => a[0] - b[0])).toEqual([...truth.entries()].sort((a, b) => a[0] - b[0]));
  const dup = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT object_id FROM gis_features WHERE siruta = $1 AND layer_id = $2 GROUP BY object_id HAVING count(*) > 1) d`,
    [siruta, LAYER],
  );
  expect(dup.rows[0].n).toBe(0);
  return truth.size;
}

async function storedCount(siruta: number): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = $2`, [siruta, LAYER]);
  return r.rows[0].n;
}


beforeAll(async () => {
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
  rig = { simJson };
  env = await localEnv();
  db = createPool(config.db.url, 4);
  suffix = runSuffix();
  for (const s of [KILL_SIRUTA, FAULT_SIRUTA, API_SIRUTA]) await forgetUat(db, s);
  worker = await startWorkerChild({ simUrl: sim.url, env: CHILD_ENV });
}, 120_000);

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await db?.end();
  await env?.teardown();
  await sim?.close();
});

describe('worker killed mid-sync', () => {
  test('SIGKILL during the downloads, restart: the store equals the truth, no duplicates, every feature counted once', async () => {
    // Slow pages (~0.8 s each) so the kill lands with some pages written and others not.
    await simJson('POST', '/__sim/faults', { latencyMs: 800 });
    try {
      const handle = await startSync(KILL_SIRUTA, 'kill');
      const truthSize = (await truthLayer(rig as SyncRig, KILL_SIRUTA, LAYER)).size;
      // Wait for the first committed page, then kill the worker process outright.
      // Generous: on a loaded machine the worker child first bundles the workflow code.
      const before = await until('a first committed page', async () => {
        const n = await storedCount(KILL_SIRUTA);
        return n > 0 ? n : false;
      }, 75_000);
      expect(before).toBeLessThan(truthSize);
      const how = await worker!.kill('SIGKILL');
      expect(how).toBe('SIGKILL');
      expect(await storedCount(KILL_SIRUTA)).toBeLessThan(truthSize);

      await simJson('DELETE', '/__sim/faults');
      worker = await startWorkerChild({ simUrl: sim.url, env: CHILD_ENV });
      const run = await handle.result();
      expect(run).toMatchObject({ status: 'done', mode: 'full', siruta: KILL_SIRUTA, removed: 0 });
      // Page writes and run counters share a transaction: a page re-run after the kill adds nothing.
      expect(run.added).toBe(truthSize);
      expect(run.remoteCount).toBe(truthSize);
      await expectStoreEqualsTruth(KILL_SIRUTA);
      const runs = await db.query(`SELECT status FROM gis_sync_runs WHERE siruta = $1 AND layer_id = $2`, [KILL_SIRUTA, LAYER]);
      expect(runs.rows).toEqual([{ status: 'done' }]);
      const pending = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_sync_pending WHERE run_id = $1`, [run.id]);
      expect(pending.rows[0].n).toBe(0);
    } finally {
      await simJson('DELETE', '/__sim/faults');
    }
  }, 150_000);
});

describe('hostile portal', () => {
  test('errorRate 0.2 + latency + session expiry: full then delta sync still equal the truth, with re-logins', async () => {
    await simJson('DELETE', '/__sim/requests');
    await simJson('POST', '/__sim/faults', { errorRate: 0.2, latencyMs: 150, sessionTtlSeconds: 1 });
    try {
      const full = await (await startSync(FAULT_SIRUTA, 'faults')).result();
      expect(full).toMatchObject({ status: 'done', mode: 'full' });
      await expectStoreEqualsTruth(FAULT_SIRUTA);

      const m = await simJson<{ added: number[]; removed: number[]; changed: number[] }>('POST', '/__sim/mutate', { siruta: FAULT_SIRUTA, layerId: LAYER, add: 6, remove: 3, change: 2 });
      // Outlive the session so the delta starts on an expired cookie.
      await new Promise((r) => setTimeout(r, 1100));
      const delta = await (await startSync(FAULT_SIRUTA, 'faults-delta')).result();
      expect(delta).toMatchObject({ status: 'done', mode: 'delta', added: m.added.length, removed: m.removed.length, reenrichMarked: m.changed.length });
      await expectStoreEqualsTruth(FAULT_SIRUTA);
      const counts = (await simJson<{ counts: Record<string, number> }>('GET', '/__sim/requests')).counts;
      expect(counts['route:POST /eterra/api/authentication']).toBeGreaterThanOrEqual(2);
    } finally {
      await simJson('DELETE', '/__sim/faults');
    }
  }, 90_000);
});

describe('sync routes', () => {
  let server: http.Server;
  let base: string;
  let cookie: string;
  const userId = () => `resilience-${suffix}`;

  const api = (method: string, path: string, body?: unknown) => callJson(base, method, path, { body, cookie });

  beforeAll(async () => {
    store = storeOn(db);
    ({ server, base } = await listenApp(createApp({ store, outside: { landregBaseUrl: sim.url } })));
    const token = newSessionToken();
    const far = Date.now() + 3_600_000;
    await createSession(
      db,
      sessionIdFor(token),
      {
        v: 1,
        user: { id: userId(), email: 'dan@birou.ro', name: 'Dan', company: 'B' },
        groups: [],
        enrichmentScope: 'full',
        // Disconnecting the shared portal account is for administrators.
        flags: { useCentralApi: false, basicPanel: false, isAdmin: true },
        tokens: { accessToken: 'test', accessTokenExpiresAt: far, refreshAt: far },
      },
    );
    cookie = `${SESSION_COOKIE}=${token}`;
  });

  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await db.query(`DELETE FROM app_sessions WHERE user_id = $1`, [userId()]);
    await closeTemporalClient();
    await store?.close();
    await closePool();
  });

  test('disconnect is refused with 409 jobs_running while a sync runs, and allowed after', async () => {
    expect((await api('POST', '/api/landreg/login', {})).status).toBe(200);
    // The portal holds the UAT's queries: the sync runs until the test lets it go.
    await simJson('POST', '/__sim/faults', { holdSirutas: [API_SIRUTA] });
    try {
      const r = await api('POST', '/api/landreg/sync-background', { siruta: API_SIRUTA, mode: 'base', layers: [LAYER] });
      expect(r.status).toBe(202);
      // Asked at once, as a user's next click would: the rule sees the sync from its start
      // (portal_job_starts), before Temporal's listing shows it.
      const off = await api('POST', '/api/landreg/session', { action: 'disconnect' });
      expect(off.status).toBe(409);
      expect(off.body).toMatchObject({ error: 'jobs_running' });
      expect(off.body.runningJobs).toBeGreaterThanOrEqual(1);
      expect(typeof off.body.message).toBe('string');
      // The session is still there.
      expect((await api('GET', '/api/landreg/session')).body.connected).toBe(true);
      await simJson('DELETE', '/__sim/faults');
      const done = await until(
        'the job to finish',
        async () => {
          const p = await api('GET', r.body.progressUrl);
          return p.body?.status !== 'running' ? p.body : false;
        },
        45_000,
        250,
      );
      expect(done).toMatchObject({ status: 'done', percent: 100 });
      await expectStoreEqualsTruth(API_SIRUTA);
    } finally {
      await simJson('DELETE', '/__sim/faults');
    }
  }, 60_000);

  const bad: Array<[string, unknown, string]> = [
    ['/api/landreg/sync', { siruta: 'abc', layer: LAYER }, 'siruta'],
    ['/api/landreg/sync', { siruta: API_SIRUTA }, 'layers'],
    ['/api/landreg/sync', { siruta: API_SIRUTA, layer: 'terenuri; drop' }, 'layer'],
    ['/api/landreg/sync', { siruta: API_SIRUTA, layer: LAYER, forceFullSync: 'yes' }, 'forceFullSync'],
    ['/api/landreg/sync-background', { siruta: API_SIRUTA, mode: 'turbo' }, 'mode'],
    ['/api/landreg/sync-background', { siruta: -4 }, 'siruta'],
    ['/api/landreg/sync-background', { siruta: API_SIRUTA, layers: [] }, 'layers'],
    ['/api/landreg/sync-county', {}, 'county'],
    ['/api/landreg/sync-county', { county: 'C' }, 'county'],
  ];
  test.each(bad)('POST %s with %j answers 400 with details naming %s', async (path, body, field) => {
    const r = await api('POST', path, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('bad_request');
    expect(typeof r.body.message).toBe('string');
    expect(Array.isArray(r.body.details)).toBe(true);
    expect(JSON.stringify(r.body.details)).toContain(field);
  });

  test('a body that is not JSON answers 400', async () => {
    const res = await fetch(`${base}/api/landreg/sync-background`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{"siruta": ' });
    expect(res.status).toBe(400);
  });
});
