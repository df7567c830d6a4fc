/**
 * Scheduling end to end (issue 21, docs/scheduling.md) on a database of its own (the rules and the
 * weekend queue are global tables the stack's own scheduler reads), the stack's Temporal dev
 * server and the land-registry simulator in-process:
 *  - sync-rules CRUD, the 410 gate on rule writes (before validation), bad bodies → 400 details;
 *  - resolution UAT rule → county rule → global default in the scheduler view;
 *  - the scheduler workflow starts a due UAT's sync with the rule's steps, once (a second tick
 *    finds it running or synced), and keeps lastRunAt / nextDueAt true;
 *  - the weekend-sync route's shape and actions;
 *  - the schedules registered on the dev server with the right next action times.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
import { migrate } from '../../domain/db/migrate';
import { seedWeekendQueue } from '../../domain/scheduling/weekend';
import { wallClock } from '../../domain/scheduling/windows';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/common/queues';
import { ensureSchedules, schedules } from '../../temporal/schedules';
import { jobHandle } from '../../temporal/jobs';
import { JOB_KIND } from '../../temporal/common/searchAttributes';
import { WEEKEND_SYNC_WORKFLOW_ID } from '../../temporal/common/singletons';
import type { syncRuleScheduler, weekendSync } from '../../workflows/scheduling';
import type { WeekendState } from '../../domain/scheduling/jobTypes';
import { progressQuery } from '../../temporal/common/progress';
import { pickUat, type SyncRig } from '../helpers/landregStack';
import { legacyGateTests, startLandregRoutes, type LandregRoutes } from '../helpers/landregRoutes';
import { scratchDatabase } from '../helpers/scratchDb';
import { heartbeatsOf } from '../helpers/temporal';

const COVASNA = 145;
const scratch = scratchDatabase('geoportal_scheduling_test');

let routes: LandregRoutes<'legacy' | 'central'>;
let rig: SyncRig;
let uats: Array<{ siruta: number; name: string; parcels: number }>;

const api: typeof routes.api = (...call) => routes.api(...call);

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  // Rules and the weekend queue are the office's settings: an administrator changes them (issue 25).
  routes = await startLandregRoutes({ legacy: ['ana@birou.ro', false, true], central: ['mihai@birou.ro', true] }, { dbUrl: scratch.url });
  rig = routes.rig;
  // Three small Covasna UATs make the county; Brăila's smallest is governed by the default only.
  uats = await Promise.all([0, 1, 2].map((rank) => pickUat(rig, COVASNA, rank)));
  for (const u of uats) await rig.db.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Covasna', $3)`, [u.siruta, u.name, COVASNA]);
}, 120_000);

afterAll(async () => {
  await routes?.stop();
  await scratch.drop();
});

describe('sync rules', () => {
  legacyGateTests(
    api,
    [
      ['POST', '/api/landreg/sync-rules'],
      ['POST', '/api/landreg/sync-rules/bulk'],
      ['PATCH', '/api/landreg/sync-rules/scheduler'],
      ['PATCH', '/api/landreg/sync-rules/00000000-0000-0000-0000-000000000000'],
      ['DELETE', '/api/landreg/sync-rules/00000000-0000-0000-0000-000000000000'],
    ],
    ['/api/landreg/sync-rules', '/api/landreg/sync-rules/scheduler', '/api/landreg/weekend-sync'],
  );

  test.each([
    { what: 'unknown step letter', body: { scope: 'county', county: 'Covasna', frequency: 'daily', steps: ['T', 'X'] }, field: 'steps.1' },
    { what: 'window end before start', body: { scope: 'county', county: 'Covasna', frequency: 'daily', windows: [{ days: [5], start: '23:00', end: '04:00' }] }, field: 'windows.0.end' },
    { what: 'priority 0', body: { scope: 'county', county: 'Covasna', frequency: 'daily', priority: 0 }, field: 'priority' },
    { what: 'unknown frequency', body: { scope: 'county', county: 'Covasna', frequency: 'yearly' }, field: 'frequency' },
    { what: 'a UAT rule without siruta', body: { scope: 'uat', frequency: 'daily' }, field: 'siruta' },
  ])('bad body ($what) → 400 naming the field', async ({ body, field }) => {
    const r = await api('POST', '/api/landreg/sync-rules', { body });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('bad_request');
    expect(r.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  test('CRUD, bulk, resolution UAT → county → default, and the scheduler view', async () => {
    const county = await api('POST', '/api/landreg/sync-rules', {
      body: { scope: 'county', county: 'covasna', frequency: 'weekly', priority: 4, steps: ['C', 'T'], windows: [{ days: [6], start: '23:00', end: '28:00' }] },
    });
    expect(county.status).toBe(201);
    // The catalogue's spelling, steps in run order.
    expect(county.body).toMatchObject({ scope: 'county', county: 'Covasna', frequency: 'weekly', priority: 4, steps: ['T', 'C'], enabled: true, lastRunAt: null });
    expect(county.body.nextDueAt).not.toBeNull();
    expect((await api('POST', '/api/landreg/sync-rules', { body: { scope: 'county', county: 'Covasna', frequency: 'daily' } })).status).toBe(409);

    const own = await api('POST', '/api/landreg/sync-rules', { body: { scope: 'uat', siruta: uats[0].siruta, frequency: 'manual', priority: 1, steps: ['T'] } });
    expect(own.status).toBe(201);
    expect(own.body.nextDueAt).toBeNull();

    const patched = await api('PATCH', `/api/landreg/sync-rules/${own.body.id}`, { body: { frequency: 'hourly' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ frequency: 'hourly', priority: 1, steps: ['T'] });
    expect((await api('GET', `/api/landreg/sync-rules/${own.body.id}`)).body.frequency).toBe('hourly');

    const view = await api('GET', '/api/landreg/sync-rules/scheduler');
    expect(view.body.defaultFrequency).toBe('daily');
    const by = (siruta: number) => view.body.due.find((d: { siruta: number }) => d.siruta === siruta);
    expect(by(uats[0].siruta)).toMatchObject({ source: 'uat', ruleId: own.body.id, frequency: 'hourly', priority: 1 });
    expect(by(uats[1].siruta)).toMatchObject({ source: 'county', ruleId: county.body.id, frequency: 'weekly' });
    // Never synced and inside no window yet: due now, started at the next Saturday 23:00.
    const runAt = wallClock(Date.parse(by(uats[1].siruta).runAt));
    expect(by(uats[1].siruta).runAt === by(uats[1].siruta).dueAt || (runAt.weekday === 6 && runAt.hour === 23)).toBe(true);

    expect((await api('PATCH', '/api/landreg/sync-rules/scheduler', { body: { defaultFrequency: 'weekly' } })).body.defaultFrequency).toBe('weekly');
    expect((await api('PATCH', '/api/landreg/sync-rules/scheduler', { body: { defaultFrequency: 'sometimes' } })).status).toBe(400);

    // Bulk: one UAT rule per UAT of the county; the one that has a rule is skipped.
    const bulk = await api('POST', '/api/landreg/sync-rules/bulk', { body: { county: 'Covasna', frequency: 'daily', priority: 3 } });
    expect(bulk.status).toBe(201);
    expect(bulk.body.skipped).toEqual([uats[0].siruta]);
    expect(bulk.body.created.map((r: { siruta: number }) => r.siruta).sort()).toEqual([uats[1].siruta, uats[2].siruta].sort());
    for (const r of bulk.body.created) expect((await api('DELETE', `/api/landreg/sync-rules/${r.id}`)).status).toBe(204);
    expect((await api('DELETE', `/api/landreg/sync-rules/${county.body.id}`)).status).toBe(204);
    expect((await api('GET', `/api/landreg/sync-rules/${county.body.id}`)).status).toBe(404);
    expect((await api('GET', '/api/landreg/sync-rules/not-a-uuid')).status).toBe(404);
    expect((await api('DELETE', `/api/landreg/sync-rules/${own.body.id}`)).status).toBe(204);
  });

  test('the scheduler starts a due UAT with the rule steps, once, and keeps lastRunAt and nextDueAt true', async () => {
    const target = uats[2];
    const rule = await api('POST', '/api/landreg/sync-rules', { body: { scope: 'uat', siruta: target.siruta, frequency: 'daily', priority: 2, steps: ['T'] } });
    expect(rule.status).toBe(201);
    let tickId = '';
    const tick = () =>
      rig.env.client.workflow.execute<typeof syncRuleScheduler>('syncRuleScheduler', {
        taskQueue: TaskQueue.store,
        workflowId: (tickId = jobWorkflowId('sync-rule-scheduler', `test-${rig.suffix}`)),
      });
    const first = await tick();
    expect(first.started.map((s) => s.siruta)).toEqual([target.siruta]);
    const job = (await jobHandle(first.started[0].jobId, rig.env.client))!;
    const result = await job.result();
    expect(result.runs.map((r: { layerId: string }) => r.layerId)).toEqual(['TERENURI_ACTIVE']);
    const runs = await rig.db.query(`SELECT trigger, status FROM gis_sync_runs WHERE siruta = $1`, [target.siruta]);
    expect(runs.rows).toEqual([{ trigger: 'schedule', status: 'done' }]);

    const after = await api('GET', `/api/landreg/sync-rules/${rule.body.id}`);
    expect(after.body.lastRunAt).not.toBeNull();
    // Synced just now: a day later is when it is due again.
    const second = await tick();
    expect(second.started).toEqual([]);
    // Each step of a tick heartbeats: one a killed worker took is retried after 20 s, not two minutes.
    const steps = await heartbeatsOf(rig.env.client, tickId);
    expect(Object.keys(steps)).toContain('planRuleSyncs');
    expect(Object.entries(steps).filter(([, ms]) => ms !== 20_000)).toEqual([]);
    const reread = await api('GET', `/api/landreg/sync-rules/${rule.body.id}`);
    const synced = await rig.db.query<{ at: Date }>(`SELECT max(finished_at) AS at FROM gis_sync_runs WHERE siruta = $1`, [target.siruta]);
    expect(Date.parse(reread.body.nextDueAt)).toBe(synced.rows[0].at.getTime() + 24 * 3_600_000);
  }, 120_000);
});

describe('weekend-sync route', () => {
  test('the queue with its four step states and the actions', async () => {
    // The seed step adds the 9 configured default cities once the catalogue knows them (issue 30).
    const defaults: Array<[number, string]> = [
      [42682, 'Brăila'], [63394, 'Sfântu Gheorghe'], [100576, 'Buftea'], [63740, 'Târgu Secuiesc'], [179551, 'Voluntari'],
      [42753, 'Făurei'], [63526, 'Covasna'], [179481, 'Otopeni'], [43331, 'Ianca'],
    ];
    for (const [siruta, name] of defaults) {
      await rig.db.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Test', $3) ON CONFLICT (siruta) DO NOTHING`, [siruta, name, COVASNA]);
    }
    expect(await seedWeekendQueue(rig.db, config.scheduling.weekendDefaultCities)).toEqual({ added: 9 });
    const initial = await api('GET', '/api/landreg/weekend-sync');
    expect(initial.status).toBe(200);
    expect(initial.body.queue).toHaveLength(9);
    expect(initial.body.queue[0]).toMatchObject({ siruta: 42682, name: 'Brăila', steps: { sync_terenuri: 'pending', sync_cladiri: 'pending', import_nogeom: 'pending', enrich: 'pending' } });
    expect(initial.body).toMatchObject({ syncStatus: 'idle', currentActivity: null });
    expect(typeof initial.body.inWeekendWindow).toBe('boolean');
    const next = wallClock(Date.parse(initial.body.nextWindowStart));
    expect([5, 6, 7]).toContain(next.weekday);
    expect(next.hour).toBe(23);

    const added = await api('POST', '/api/landreg/weekend-sync', { body: { action: 'add', siruta: uats[1].siruta } });
    expect(added.body.queue.at(-1)).toMatchObject({ siruta: uats[1].siruta, name: uats[1].name });
    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'add', siruta: 99999999 } })).status).toBe(400);
    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'add' } })).status).toBe(400);
    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'explode' } })).status).toBe(400);

    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'pause' } })).body).toMatchObject({ syncStatus: 'paused', paused: true });
    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'resume' } })).body).toMatchObject({ syncStatus: 'idle', paused: false });

    await rig.db.query(`UPDATE weekend_sync_queue SET steps = steps || '{"sync_terenuri":"error"}', last_error = 'x' WHERE siruta = $1`, [uats[1].siruta]);
    const reset = await api('POST', '/api/landreg/weekend-sync', { body: { action: 'reset', siruta: uats[1].siruta } });
    expect(reset.body.queue.at(-1)).toMatchObject({ steps: { sync_terenuri: 'pending' } });
    expect(reset.body.queue.at(-1).lastError).toBeUndefined();

    const removed = await api('POST', '/api/landreg/weekend-sync', { body: { action: 'remove', siruta: uats[1].siruta } });
    expect(removed.body.queue).toHaveLength(9);
    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'remove', siruta: uats[1].siruta } })).status).toBe(404);
  });

  test('a trigger starts the session under its fixed id, or signals the one running (the job table: signal-with-start)', async () => {
    // Nothing pending: the session the trigger starts finds no step and ends at once.
    await rig.db.query(`DELETE FROM weekend_sync_queue`);
    const triggered = await api('POST', '/api/landreg/weekend-sync', { body: { action: 'trigger' } });
    expect(triggered.status).toBe(200);
    expect(triggered.body).toMatchObject({ jobId: WEEKEND_SYNC_WORKFLOW_ID, queue: [] });
    const session = rig.env.client.workflow.getHandle<typeof weekendSync>(WEEKEND_SYNC_WORKFLOW_ID);
    expect(await session.result()).toMatchObject({ stepsRun: 0, stepsFailed: 0 });
    expect((await session.describe()).typedSearchAttributes.get(JOB_KIND)).toBe('weekend-sync');
    const after = await api('GET', '/api/landreg/weekend-sync');
    expect(after.body).toMatchObject({ syncStatus: 'idle', currentActivity: null, forced: false });
  });

  test('a paused session waits until the resume wakes it (the wake signal of the job table)', async () => {
    await rig.db.query(`DELETE FROM weekend_sync_queue`);
    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'pause' } })).status).toBe(200);
    const session = await rig.env.client.workflow.start<typeof weekendSync>('weekendSync', {
      taskQueue: TaskQueue.store,
      workflowId: WEEKEND_SYNC_WORKFLOW_ID,
      args: [{ requestTileRebuild: false }],
    });
    // Paused, it waits for a signal with no timer: only the resume's wake lets it read the queue again.
    for (let paused = false; !paused; await new Promise((r) => setTimeout(r, 200))) {
      paused = ((await session.query(progressQuery)).detail as WeekendState | undefined)?.syncStatus === 'paused';
    }
    expect((await session.describe()).status.name).toBe('RUNNING');
    expect((await api('POST', '/api/landreg/weekend-sync', { body: { action: 'resume' } })).body).toMatchObject({ paused: false });
    // Awake and unpaused, it finds nothing pending and ends.
    expect(await session.result()).toMatchObject({ stepsRun: 0, stepsFailed: 0 });
  });
});

describe('schedules on the dev server', () => {
  test('the rule scheduler fires every 15 minutes, the weekend kick on Friday, Saturday and Sunday at 23:00, auto-refresh on weekdays at 01:00 Romanian time', async () => {
    const types = ['syncRuleScheduler', 'weekendSyncKick', 'autoRefresh'];
    const wanted = schedules.filter((s) => types.includes(s.workflowType)).map((d) => ({ ...d, id: `${d.id}-${rig.suffix}` }));
    expect(wanted).toHaveLength(3);
    await ensureSchedules(rig.env.client, wanted);
    const next = async (type: string) => {
      const handle = rig.env.client.schedule.getHandle(wanted.find((w) => w.workflowType === type)!.id);
      // Paused at once: the test reads the plan, nothing may fire against the rig.
      await handle.pause('test');
      return (await handle.describe()).info.nextActionTimes.map((d) => d.getTime());
    };
    try {
      const ticks = await next('syncRuleScheduler');
      expect(ticks.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < ticks.length; i++) expect(ticks[i] - ticks[i - 1]).toBe(15 * 60_000);
      const nights = (await next('weekendSyncKick')).map(wallClock);
      expect(nights.length).toBeGreaterThanOrEqual(3);
      for (const n of nights) {
        expect([5, 6, 7]).toContain(n.weekday);
        expect([n.hour, n.minute]).toEqual([23, 0]);
      }
      const refreshes = (await next('autoRefresh')).map(wallClock);
      expect(refreshes.length).toBeGreaterThanOrEqual(3);
      for (const n of refreshes) {
        expect([1, 2, 3, 4, 5]).toContain(n.weekday);
        expect([n.hour, n.minute]).toEqual([1, 0]);
      }
      // One a night: consecutive refreshes are on different days.
      expect(new Set(refreshes.map((n) => `${n.year}-${n.month}-${n.day}`)).size).toBe(refreshes.length);
    } finally {
      await Promise.allSettled(wanted.map((w) => rig.env.client.schedule.getHandle(w.id).delete()));
    }
  });
});
