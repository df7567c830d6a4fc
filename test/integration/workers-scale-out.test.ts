/**
 * Workers that scale out (issue 32 item 4, docs/operations.md "More than one worker process"): two
 * worker processes (the wiring of workers/main.ts, test/helpers/syncWorkerProcess.ts) poll the same
 * task queues of this file's namespace on the stack's Temporal; the all-counties sync over a
 * catalogue of two counties lands its workflow tasks and activities on both (the identity Temporal
 * records in each history), and after one of them is SIGKILLed mid-run the other finishes the job
 * and the store equals the simulator's truth, UAT by UAT and layer by layer. The job reads the
 * whole catalogue, so it runs on a database of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tsToMs } from '@temporalio/common/lib/time';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type pg from 'pg';
import { migrate } from '../../domain/db/migrate';
import { createPool } from '../../domain/db/pool';
import { TaskQueue } from '../../temporal/common/queues';
import { ALL_COUNTIES_JOB_ID } from '../../temporal/common/singletons';
import { startLandregSimulator, type LandregSimulator } from '../../simulators/landreg/server';
import type { allCountiesSync } from '../../workflows/countySync';
import { simulatorJson, storedLayer, truthLayer, type SyncRig } from '../helpers/landregStack';
import { scratchDatabase } from '../helpers/scratchDb';
import { startWorkerChild, type WorkerChild } from '../helpers/syncWorkerChild';
import { localEnv, scheduledActivities } from '../helpers/temporal';
import { until } from '../helpers/wait';

const COUNTIES = [
  { workspacePk: 92, name: 'Brăila' },
  { workspacePk: 145, name: 'Covasna' },
];
const UATS_PER_COUNTY = 3;
const LAYERS = ['TERENURI_ACTIVE', 'CLADIRI_ACTIVE'];
const scratch = scratchDatabase('geoportal_scale_out_test');

let sim: LandregSimulator;
let env: TestWorkflowEnvironment;
let db: pg.Pool;
let rig: Pick<SyncRig, 'simJson'>;
const workers: WorkerChild[] = [];
const uats: Array<{ siruta: number; name: string; county: string }> = [];

const simJson = <T = any>(method: string, path: string, body?: unknown): Promise<T> => simulatorJson(sim.url)<T>(method, path, body);

/** Who ran each workflow task and activity recorded under the job (child workflows included), and when. */
async function workUnder(workflowId: string, runId?: string): Promise<Array<{ identity: string; at: number }>> {
  const seen: Array<{ identity: string; at: number }> = [];
  const walk = async (id: string, run?: string) => {
    const history = await env.client.workflow.getHandle(id, run).fetchHistory();
    const children: Array<Promise<void>> = [];
    for (const e of history.events ?? []) {
      const identity = e.workflowTaskCompletedEventAttributes?.identity ?? e.activityTaskStartedEventAttributes?.identity;
      if (identity) seen.push({ identity, at: tsToMs(e.eventTime) });
      const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.workflowId) children.push(walk(child.workflowId, child.runId ?? undefined));
    }
    await Promise.all(children);
  };
  await walk(workflowId, runId);
  return seen;
}

const workerName = (i: number) => `scale-out-${i + 1}`;
const identityOf = (w: WorkerChild, i: number) => new RegExp(`^${workerName(i)}@.+:${w.proc.pid}$`);

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  db = createPool(scratch.url, 4);
  sim = await startLandregSimulator({ port: 0, seed: 42, scale: 'demo' });
  rig = { simJson };
  env = await localEnv();
  // The smallest UATs of two counties make the catalogue the job walks.
  const truth = await simJson<{ uats: Array<{ siruta: number; name: string; workspaceId: number; counts: Record<string, number> }> }>('GET', '/__sim/truth');
  for (const c of COUNTIES) {
    const smallest = truth.uats
      .filter((u) => u.workspaceId === c.workspacePk)
      .sort((a, b) => a.counts.TERENURI_ACTIVE - b.counts.TERENURI_ACTIVE || a.siruta - b.siruta)
      .slice(0, UATS_PER_COUNTY);
    for (const u of smallest) {
      await db.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, $3, $4)`, [u.siruta, u.name, c.name, c.workspacePk]);
      uats.push({ siruta: u.siruta, name: u.name, county: c.name });
    }
  }
  // Two processes on the same task queues and the same database: the production wiring, twice.
  const started = await Promise.all(
    [0, 1].map((i) => startWorkerChild({ simUrl: sim.url, env: { DATABASE_URL: scratch.url, WORKER_NAME: workerName(i) }, readyTimeoutMs: 120_000 })),
  );
  workers.push(...started);
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.kill('SIGTERM')));
  await db?.end();
  await env?.teardown();
  await sim?.close();
  await scratch.drop();
});

describe('two worker processes', () => {
  it('share the all-counties sync; one SIGKILLed mid-run, the other finishes it and the store equals the truth', async () => {
    expect(uats).toHaveLength(COUNTIES.length * UATS_PER_COUNTY);
    // A portal that takes its time (every call ~0.4 s) keeps the job running long enough to kill a worker in the middle.
    await simJson('POST', '/__sim/faults', { latencyMs: 400 });
    try {
      const handle = await env.client.workflow.start<typeof allCountiesSync>('allCountiesSync', {
        taskQueue: TaskQueue.store,
        workflowId: ALL_COUNTIES_JOB_ID,
        args: [{ requestTileRebuild: false }],
      });

      // Temporal hands the tasks to whichever poller asks: both processes get some.
      const byWorker = (work: Array<{ identity: string }>) => workers.map((w, i) => work.filter((x) => identityOf(w, i).test(x.identity)).length);
      const before = await until('work done by both worker processes', async () => {
        const work = await workUnder(handle.workflowId, handle.firstExecutionRunId);
        return byWorker(work).every((n) => n > 0) ? work : false;
      }, 90_000, 500);
      // Nobody else serves this file's namespace.
      expect(byWorker(before).reduce((a, b) => a + b, 0)).toBe(before.length);

      const doneRuns = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_sync_runs WHERE status = 'done'`)).rows[0].n;
      expect(await workers[0].kill('SIGKILL')).toBe('SIGKILL');
      const killedAt = Date.now();
      // Killed in the middle: layers were still to sync when the process died.
      expect(await doneRuns()).toBeLessThan(uats.length * LAYERS.length);

      const result = await handle.result();
      expect(result.counties).toEqual(
        COUNTIES.map((c) => ({ county: c.name, done: UATS_PER_COUNTY, failed: 0, added: expect.any(Number) })),
      );

      // Everything after the kill (a margin for what the dying process had already reported) ran on the survivor.
      const later = (await workUnder(handle.workflowId, handle.firstExecutionRunId)).filter((x) => x.at > killedAt + 2000);
      expect(later.length).toBeGreaterThan(0);
      expect(byWorker(later)).toEqual([0, later.length]);
      // Whichever step the kill met, its retry elsewhere waited 20 s at most: every activity of
      // the job (the lock check, the store's bookkeeping, the portal's downloads) has a heartbeat.
      const scheduled = await scheduledActivities(env.client, handle.workflowId, handle.firstExecutionRunId);
      expect(scheduled.length).toBeGreaterThan(uats.length * LAYERS.length);
      expect(scheduled.filter((a) => !a.heartbeatMs || a.heartbeatMs > 20_000)).toEqual([]);

      let added = 0;
      for (const u of uats) {
        for (const layer of LAYERS) {
          const truth = await truthLayer(rig as SyncRig, u.siruta, layer);
          expect({ siruta: u.siruta, layer, stored: await storedLayer(db, u.siruta, layer) }).toEqual({ siruta: u.siruta, layer, stored: truth });
          added += truth.size;
        }
      }
      expect(result.counties.reduce((s, c) => s + c.added, 0)).toBe(added);
      // One run per UAT and layer, each finished: the retried activities reused their run.
      const runs = await db.query<{ siruta: number; layer_id: string; status: string; trigger: string }>(
        `SELECT siruta, layer_id, status, trigger FROM gis_sync_runs ORDER BY siruta, layer_id`,
      );
      expect(runs.rows).toHaveLength(uats.length * LAYERS.length);
      expect(new Set(runs.rows.map((r) => `${r.trigger}/${r.status}`))).toEqual(new Set(['all_counties/done']));
      const dup = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM gis_features GROUP BY siruta, layer_id, object_id HAVING count(*) > 1) d`,
      );
      expect(dup.rows[0].n).toBe(0);
    } finally {
      await simJson('DELETE', '/__sim/faults');
    }
  }, 240_000);
});
