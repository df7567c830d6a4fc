/**
 * The weekend deep sync workflow (spec 3.4, issue 21) in Temporal's time-skipping test server,
 * with real workers (store, landreg, notifications queues), a database of its own and the
 * land-registry simulator in-process:
 *  - a session waits for the weekend window, then runs each city's four steps in order;
 *  - a step the portal fails on ends in `error`, the steps that need its parcels are `skipped`,
 *    and every administrator gets one `weekend-sync-failed` notification for it;
 *  - a trigger resets the failed steps to pending and runs them at once; the session report is kept;
 *  - the store worker (which runs the session) shut down in the middle of a step and another one
 *    started: the same city and step go on and finish, and nothing already done runs again;
 *  - after the triggered city, the next one waits for the next window night and runs in it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Worker } from '@temporalio/worker';
import { migrate } from '../../domain/db/migrate';
import { createPrisma } from '../../domain/db/prisma';
import { lastReport, listQueue, resetErrors } from '../../domain/scheduling/weekend';
import { weekendWindow } from '../../domain/scheduling/windows';
import { TaskQueue } from '../../temporal/common/queues';
import { workerRegistry } from '../../workers/registry';
import { createQueueWorkers } from '../../workers/start';
import { WEEKEND_SYNC_WORKFLOW_ID } from '../../temporal/common/singletons';
import { readJob } from '../../temporal/jobs';
import type { WeekendState } from '../../domain/scheduling/jobTypes';
import type { weekendSync } from '../../workflows/scheduling';
import { forgetUat, pickUat, startSyncRig, type SyncRig } from '../helpers/landregStack';
import { until } from '../helpers/wait';
import { scratchDatabase } from '../helpers/scratchDb';
import { timeSkippingEnv, namespaceOf } from '../helpers/temporal';

const COVASNA = 145;
const scratch = scratchDatabase('geoportal_weekend_sync_test');
const ADMIN = `weekend-admin-${randomUUID()}`;

let rig: SyncRig;
/** Workers a test started in place of the rig's own (stopped in afterAll). */
const replacements: Array<{ worker: Worker; run: Promise<void> }> = [];
let good: { siruta: number; name: string };
let bad: { siruta: number; name: string };

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  rig = await startSyncRig({ dbUrl: scratch.url, env: await timeSkippingEnv(), queues: [TaskQueue.store, TaskQueue.landreg, TaskQueue.notifications] });
  [good, bad] = await Promise.all([pickUat(rig, COVASNA, 0), pickUat(rig, COVASNA, 1)]);
  await rig.db.query(`DELETE FROM weekend_sync_queue`);
  for (const [i, u] of [good, bad].entries()) {
    await rig.db.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Covasna', $3)`, [u.siruta, u.name, COVASNA]);
    await rig.db.query(`INSERT INTO weekend_sync_queue (siruta, name, position) VALUES ($1, $2, $3)`, [u.siruta, u.name, i + 1]);
  }
  // An administrator known from a session: the recipient of the failure notifications.
  await rig.db.query(`INSERT INTO app_sessions (id, user_id, data, expires_at) VALUES ($1, $2, $3, now() + interval '1 day')`, [
    `s-${ADMIN}`,
    ADMIN,
    JSON.stringify({ flags: { isAdmin: true } }),
  ]);
  // …and in the users directory, where the session report finds the administrators' addresses.
  await rig.db.query(`INSERT INTO app_users (id, email, name, company, is_admin) VALUES ($1, $2, 'Admin Weekend', 'B', true)`, [ADMIN, `${ADMIN}@birou.ro`]);
}, 180_000);

/**
 * A store worker of the test's own, without a workflow cache: the time-skipping server keeps a
 * stopped worker's sticky queue until a timeout on its own clock, which does not move while that
 * task is pending (measured: the session never resumed). Without a cache there is no sticky queue,
 * and the new worker replays the session from its history, as after a crash.
 */
async function startStoreWorker(): Promise<Worker> {
  const entry = workerRegistry[TaskQueue.store];
  const [worker] = (
    await createQueueWorkers({
      connection: rig.env.nativeConnection,
      namespace: namespaceOf(rig.env),
      deps: { store: rig.store, landregBaseUrl: rig.sim.url },
      queues: [TaskQueue.store],
      registry: { ...workerRegistry, [TaskQueue.store]: { ...entry, options: { ...entry.options, maxCachedWorkflows: 0 } } },
    })
  ).values();
  replacements.push({ worker, run: worker.run() });
  return worker;
}

async function stopWorker(worker: Worker): Promise<void> {
  worker.shutdown();
  await until('the worker to stop', async () => worker.getState() === 'STOPPED', 60_000);
}

afterAll(async () => {
  for (const r of replacements) if (r.worker.getState() === 'RUNNING') r.worker.shutdown();
  await Promise.allSettled(replacements.map((r) => r.run));
  await rig?.stop();
  await scratch.drop();
});

describe('weekend deep sync session', () => {
  test('waits for the window, runs the steps in order, reports a failed step, and a trigger retries it at once', async () => {
    const prisma = createPrisma(rig.db);
    const workflowId = WEEKEND_SYNC_WORKFLOW_ID;
    await rig.simJson('POST', '/__sim/faults', { failSirutas: [bad.siruta] });
    const started = Date.now();
    const tally = await rig.env.client.workflow.execute<typeof weekendSync>('weekendSync', {
      taskQueue: TaskQueue.store,
      workflowId,
      args: [{ requestTileRebuild: false }],
    });
    await rig.simJson('POST', '/__sim/faults', { failSirutas: [] });

    const queue = await listQueue(prisma);
    expect(queue.find((q) => q.siruta === good.siruta)?.steps).toEqual({ sync_terenuri: 'done', sync_cladiri: 'done', import_nogeom: 'done', enrich: 'done' });
    const failed = queue.find((q) => q.siruta === bad.siruta)!;
    expect(failed.steps).toEqual({ sync_terenuri: 'error', sync_cladiri: 'error', import_nogeom: 'skipped', enrich: 'skipped' });
    expect(failed.lastError).toMatch(/^sincronizare (terenuri|clădiri): /);
    expect(tally).toMatchObject({ stepsRun: 6, stepsFailed: 2 });
    expect(tally.featuresAdded).toBeGreaterThan(0);
    // The steps ran inside a weekend window: workflow time went forward to it (unless it was open).
    expect(tally.endedAt).toBeGreaterThanOrEqual(started);

    const notes = await rig.db.query<{ type: string; title: string }>(`SELECT type, title FROM notifications WHERE user_id = $1 ORDER BY created_at`, [ADMIN]);
    expect(notes.rows).toHaveLength(2);
    for (const n of notes.rows) expect(n).toEqual({ type: 'weekend-sync-failed', title: `Sincronizarea de weekend a eșuat: ${bad.name}` });
    expect((await lastReport(prisma))?.subject).toMatch(/cu erori: 1 localități cu erori/);
    // The session report is queued once as an e-mail to the administrators.
    const reports = await rig.db.query<{ subject: string; recipients: string[] }>(`SELECT subject, recipients FROM mail_outbox WHERE kind = 'report'`);
    expect(reports.rows).toHaveLength(1);
    expect(reports.rows[0].subject).toMatch(/cu erori: 1 localități cu erori/);
    expect(reports.rows[0].recipients).toContain(`${ADMIN}@birou.ro`);

    // Trigger (what POST {action:'trigger'} does): errors back to pending, a forced session at once.
    expect(await resetErrors(prisma)).toBe(1);
    const retried = await rig.env.client.workflow.execute<typeof weekendSync>('weekendSync', {
      taskQueue: TaskQueue.store,
      workflowId,
      args: [{ forced: true, runNow: true, requestTileRebuild: false }],
    });
    expect(retried).toMatchObject({ stepsRun: 4, stepsFailed: 0 });
    const after = await listQueue(prisma);
    expect(after.find((q) => q.siruta === bad.siruta)?.steps).toEqual({ sync_terenuri: 'done', sync_cladiri: 'done', import_nogeom: 'done', enrich: 'done' });
    // No new notification: nothing failed.
    expect((await rig.db.query(`SELECT 1 FROM notifications WHERE user_id = $1`, [ADMIN])).rowCount).toBe(2);
    await prisma.$disconnect();
  }, 300_000);

  test('a worker restart in the middle resumes the same city and step, and nothing done runs again', async () => {
    const prisma = createPrisma(rig.db);
    const store = TaskQueue.store;
    const workflowId = WEEKEND_SYNC_WORKFLOW_ID;
    // One city, from scratch: its four steps pending, no features, no runs.
    await rig.db.query(`DELETE FROM weekend_sync_queue WHERE siruta <> $1`, [good.siruta]);
    await rig.db.query(`UPDATE weekend_sync_queue SET steps = '{"sync_terenuri":"pending","sync_cladiri":"pending","import_nogeom":"pending","enrich":"pending"}', attempts = '{}', last_error = NULL`);
    await forgetUat(rig.db, good.siruta);
    // Every portal call slowed down, so the buildings step is still going when the worker stops.
    await rig.simJson('POST', '/__sim/faults', { latencyMs: 400 });
    // The rig's store worker makes way for one of the test's own (see startStoreWorker).
    await stopWorker(rig.workers.get(TaskQueue.store)!);
    rig.workers.delete(TaskQueue.store);
    const first = await startStoreWorker();
    try {
      const handle = await rig.env.client.workflow.start<typeof weekendSync>('weekendSync', { taskQueue: store, workflowId, args: [{ forced: true, runNow: true, requestTileRebuild: false }] });
      const stepOf = async (step: string) => (await listQueue(prisma)).find((q) => q.siruta === good.siruta)!.steps[step as 'sync_cladiri'];
      await until('the buildings step to run', async () => (await stepOf('sync_cladiri')) === 'running', 120_000);
      // From here the portal holds the city's queries: the buildings step cannot finish before the
      // worker stops, however fast or slow the machine (the latency alone left that to timing).
      await rig.simJson('POST', '/__sim/faults', { holdSirutas: [good.siruta] });
      const child = await until('the buildings sync child', async () => (await handle.describe()).raw.pendingChildren?.[0]?.workflowId, 30_000);
      expect(await stepOf('sync_terenuri')).toBe('done');

      // The worker that runs the session (and the step's child) goes away mid-step.
      await stopWorker(first);
      expect(await stepOf('sync_cladiri')).toBe('running');

      // Another worker takes over (as after a crash and restart): it replays the session to where it was.
      await startStoreWorker();
      // The session's view, as the queue page reads it: the detail of its progress.
      const state = await until('the session view', async () => (await readJob<WeekendState>(workflowId, rig.env.client))?.progress?.detail, 30_000);
      expect(state).toMatchObject({ syncStatus: 'running', currentActivity: `${good.name}: sincronizare clădiri` });
      const finished = handle.result();
      await rig.simJson('POST', '/__sim/faults', { latencyMs: 0, holdSirutas: [] });

      const tally = await finished;
      expect(tally).toMatchObject({ stepsRun: 4, stepsFailed: 0 });
      const item = (await listQueue(prisma)).find((q) => q.siruta === good.siruta)!;
      expect(item.steps).toEqual({ sync_terenuri: 'done', sync_cladiri: 'done', import_nogeom: 'done', enrich: 'done' });
      // Each step started once: the restart neither repeated the parcels nor restarted the buildings.
      const attempts = await rig.db.query<{ attempts: Record<string, number> }>(`SELECT attempts FROM weekend_sync_queue WHERE siruta = $1`, [good.siruta]);
      expect(attempts.rows[0].attempts).toEqual({ sync_terenuri: 1, sync_cladiri: 1, import_nogeom: 1, enrich: 1 });
      const runs = await rig.db.query<{ layer_id: string; status: string }>(
        `SELECT layer_id, status FROM gis_sync_runs WHERE siruta = $1 AND layer_id IN ('TERENURI_ACTIVE', 'CLADIRI_ACTIVE') ORDER BY started_at`,
        [good.siruta],
      );
      expect(runs.rows.map((r) => [r.layer_id, r.status])).toEqual([
        ['TERENURI_ACTIVE', 'done'],
        ['CLADIRI_ACTIVE', 'done'],
      ]);
      // The buildings sync that was running before the restart is the one that finished (one run).
      expect((await rig.env.client.workflow.getHandle(child).describe()).status.name).toBe('COMPLETED');
    } finally {
      await rig.simJson('POST', '/__sim/faults', { latencyMs: 0, holdSirutas: [] });
      await prisma.$disconnect();
    }
  }, 300_000);

  test('a trigger runs its city at once; the next city waits for the next window night and runs in it', async () => {
    const prisma = createPrisma(rig.db);
    const store = TaskQueue.store;
    await rig.db.query(`DELETE FROM weekend_sync_queue`);
    for (const [i, u] of [good, bad].entries()) await rig.db.query(`INSERT INTO weekend_sync_queue (siruta, name, position) VALUES ($1, $2, $3)`, [u.siruta, u.name, i + 1]);
    try {
      const handle = await rig.env.client.workflow.start<typeof weekendSync>('weekendSync', { taskQueue: store, workflowId: WEEKEND_SYNC_WORKFLOW_ID, args: [{ forced: true, runNow: true, requestTileRebuild: false }] });
      const tally = await handle.result();
      expect(tally).toMatchObject({ stepsRun: 8, stepsFailed: 0 });
      // When each city's last step started, on the session's (workflow) clock.
      const at = await rig.db.query<{ siruta: number; last_run_at: Date }>(`SELECT siruta, last_run_at FROM weekend_sync_queue ORDER BY position`);
      const [first, second] = at.rows.map((r) => r.last_run_at.getTime());
      expect(at.rows.map((r) => r.siruta)).toEqual([good.siruta, bad.siruta]);
      // The triggered city ran whatever the hour; the next one only inside a (forced) window:
      // when the window was closed after the first city, it waited for the next night's start.
      expect(weekendWindow(second, true).open).toBe(true);
      const afterFirst = weekendWindow(first, true);
      if (!afterFirst.open) expect(second).toBeGreaterThanOrEqual(afterFirst.nextStart!);
      expect((await listQueue(prisma)).every((q) => Object.values(q.steps).every((st) => st === 'done'))).toBe(true);
    } finally {
      await prisma.$disconnect();
    }
  }, 300_000);
});
