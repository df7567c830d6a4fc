/**
 * The parcel-sync test rig: the land-registry simulator in-process on a free port, real
 * PostgreSQL (the stack's database), and real Temporal workers for the `store` and `landreg`
 * queues in the test file's own namespace (test/helpers/temporal.ts), with activities aimed at
 * this simulator.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { config } from '../../domain/config';
import { createPool } from '../../domain/db/pool';
import { storeOn, type Store } from '../../domain/db/store';
import { TaskQueue, type TaskQueueName } from '../../temporal/common/queues';
import { createQueueWorkers } from '../../workers/start';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import { localEnv, runSuffix, namespaceOf } from './temporal';

export interface SyncRig {
  sim: LandregSimulator;
  env: TestWorkflowEnvironment;
  db: pg.Pool;
  /** The rig's store on `db`: hand it to an app (`createApp(rigAppDeps(rig))`). */
  store: Store;
  /** A tag of this rig's own, for ids and rows of its tests. */
  suffix: string;
  workers: Map<TaskQueueName, Worker>;
  stop(): Promise<void>;
  simJson<T = any>(method: string, path: string, body?: unknown): Promise<T>;
}

/** JSON calls to a land-registry simulator's routes and `/__sim` controls. */
export function simulatorJson(baseUrl: string): SyncRig['simJson'] {
  return async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as T;
  };
}

/** `dbUrl`: a database of the test's own (default: the stack's), for jobs that read the whole catalogue. */
export async function startSyncRig(
  opts: { sessionTtlSeconds?: number; dbUrl?: string; env?: TestWorkflowEnvironment; queues?: TaskQueueName[] } = {},
): Promise<SyncRig> {
  const sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo', sessionTtlSeconds: opts.sessionTtlSeconds });
  const env = opts.env ?? (await localEnv());
  const db = createPool(opts.dbUrl ?? config.db.url, 8);
  const store = storeOn(db);
  const suffix = runSuffix();
  const workers = await createQueueWorkers({
    connection: env.nativeConnection,
    namespace: namespaceOf(env),
    deps: { store, landregBaseUrl: sim.url },
    queues: opts.queues ?? [TaskQueue.store, TaskQueue.landreg],
  });
  const runs = [...workers.values()].map((w) => w.run());
  const simJson = simulatorJson(sim.url);
  return {
    sim,
    env,
    db,
    store,
    suffix,
    workers,
    simJson,
    async stop() {
      for (const w of workers.values()) w.shutdown();
      await Promise.allSettled(runs);
      await store.close();
      await db.end();
      await env.teardown();
      await sim.close();
    },
  };
}

/** An app's deps aimed at the rig: its store and its simulator for the landreg routes. */
export function rigAppDeps(rig: SyncRig): { store: Store; outside: { landregBaseUrl: string } } {
  return { store: rig.store, outside: { landregBaseUrl: rig.sim.url } };
}

/** A UAT of the simulator's demo data, picked by county and rank of parcel count (small first). */
export async function pickUat(rig: SyncRig, workspaceId: number, rank: number): Promise<{ siruta: number; name: string; parcels: number }> {
  const truth = await rig.simJson<{ uats: Array<{ siruta: number; name: string; workspaceId: number; counts: Record<string, number> }> }>('GET', '/__sim/truth');
  const list = truth.uats
    .filter((u) => u.workspaceId === workspaceId)
    .sort((a, b) => a.counts.TERENURI_ACTIVE - b.counts.TERENURI_ACTIVE || a.siruta - b.siruta);
  const u = list[rank];
  return { siruta: u.siruta, name: u.name, parcels: u.counts.TERENURI_ACTIVE };
}

/** Removes every trace of a UAT from the store, so a test starts from "never synced". */
export async function forgetUat(db: pg.Pool, siruta: number): Promise<void> {
  await db.query(`DELETE FROM gis_features WHERE siruta = $1`, [siruta]);
  await db.query(`DELETE FROM gis_sync_runs WHERE siruta = $1`, [siruta]);
  await db.query(`DELETE FROM feature_changes WHERE siruta = $1`, [siruta]);
}

/** The store's (objectId → validFrom ms) of a layer, for comparison with /__sim/truth. */
export async function storedLayer(db: pg.Pool, siruta: number, layerId: string): Promise<Map<number, number | null>> {
  const r = await db.query<{ object_id: string; vf: string | null }>(
    `SELECT object_id, (extract(epoch FROM valid_from) * 1000)::bigint::text AS vf FROM gis_features
      WHERE siruta = $1 AND layer_id = $2 AND object_id >= 0`,
    [siruta, layerId],
  );
  return new Map(r.rows.map((x) => [Number(x.object_id), x.vf === null ? null : Number(x.vf)]));
}

export async function truthLayer(rig: SyncRig, siruta: number, layerId: string): Promise<Map<number, number | null>> {
  const t = await rig.simJson<{ features: Array<{ objectId: number; validFrom: number | null }> }>('GET', `/__sim/truth?siruta=${siruta}&layerId=${layerId}`);
  return new Map(t.features.map((f) => [f.objectId, f.validFrom]));
}
