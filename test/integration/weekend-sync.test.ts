/**
 * The weekend deep sync workflow (spec 3.4, issue 21) in Temporal's time-skipping test server,
 * with real workers (store, landreg, notifications queues), a database of its own and the
 * land-registry simulator in-process:
 *  - a session waits for the weekend window, then runs each city's four steps in order;
 *  - a step the portal fails on ends in `error`, the steps that need its parcels are `skipped`,
 *    and every administrator gets one `weekend-sync-failed` notification for it;
 *  - a trigger resets the failed steps to pending and runs them at once; the session report is kept.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { migrate } from '../../domain/db/migrate';
import { createPrisma } from '../../domain/db/prisma';
import { lastReport, listQueue, resetErrors } from '../../domain/scheduling/weekend';
import { TaskQueue } from '../../temporal/queues';
import { weekendSyncWorkflowId, type weekendSync } from '../../workflows/scheduling';
import { pickUat, startSyncRig, type SyncRig } from '../helpers/landregStack';
import { scratchDatabase } from '../helpers/scratchDb';
import { timeSkippingEnv } from '../helpers/temporal';

const COVASNA = 145;
const scratch = scratchDatabase('geoportal_weekend_sync_test');
const ADMIN = `weekend-admin-${randomUUID()}`;

let rig: SyncRig;
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

afterAll(async () => {
  await rig?.stop();
  await scratch.drop();
});

describe('weekend deep sync session', () => {
  test('waits for the window, runs the steps in order, reports a failed step, and a trigger retries it at once', async () => {
    const prisma = createPrisma(rig.db);
    const workflowId = weekendSyncWorkflowId(rig.queue(TaskQueue.store));
    await rig.simJson('POST', '/__sim/faults', { failSirutas: [bad.siruta] });
    const started = Date.now();
    const tally = await rig.env.client.workflow.execute<typeof weekendSync>('weekendSync', {
      taskQueue: rig.queue(TaskQueue.store),
      workflowId,
      args: [{}],
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
      taskQueue: rig.queue(TaskQueue.store),
      workflowId,
      args: [{ forced: true, runNow: true }],
    });
    expect(retried).toMatchObject({ stepsRun: 4, stepsFailed: 0 });
    const after = await listQueue(prisma);
    expect(after.find((q) => q.siruta === bad.siruta)?.steps).toEqual({ sync_terenuri: 'done', sync_cladiri: 'done', import_nogeom: 'done', enrich: 'done' });
    // No new notification: nothing failed.
    expect((await rig.db.query(`SELECT 1 FROM notifications WHERE user_id = $1`, [ADMIN])).rowCount).toBe(2);
    await prisma.$disconnect();
  }, 300_000);
});
