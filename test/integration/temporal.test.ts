/**
 * Temporal foundation: the housekeeping workflow on a real Worker against the dev server,
 * idempotent schedule registration, and the time-skipping test server wrapper.
 * Everything runs on its own task queue and ids, so a running stack is never disturbed.
 */
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import pg from 'pg';
import { config, projectRoot } from '../../domain/config';
import { createPool } from '../../domain/db/pool';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/common/queues';
import { ensureSchedules, SCHEDULE_TIME_ZONE, schedules, type ScheduleDeclaration } from '../../temporal/schedules';
import type { sessionHousekeeping } from '../../workflows/sessionHousekeeping';
import { createQueueWorkers, workflowBundleFor } from '../../workers/start';
import { jobMetricSinks } from '../../workers/metrics';
import { localEnv, runSuffix, timeSkippingEnv, namespaceOf } from '../helpers/temporal';
import type { sleepThreeDays } from '../helpers/workflows';
import { storeOn } from '../../domain/db/store';

const suffix = runSuffix();

describe('Temporal on the local dev server', () => {
  let env: TestWorkflowEnvironment;
  let admin: pg.Client;
  let scratch: pg.Pool;
  // A scratch database: the housekeeping deletes every expired row, so it must not share a
  // table with other tests or a developer's sessions.
  const scratchDb = `scratch_temporal_${suffix.replace(/-/g, '_')}`;

  beforeAll(async () => {
    env = await localEnv();
    admin = new pg.Client({ connectionString: config.db.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${scratchDb}`);
    const url = new URL(config.db.url);
    url.pathname = `/${scratchDb}`;
    scratch = createPool(url.toString(), 4);
    // Shape of the app_sessions migration (only the columns housekeeping relies on matter).
    await scratch.query(`CREATE TABLE IF NOT EXISTS app_sessions (
      id text PRIMARY KEY, user_id text, data jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL)`);
  });

  afterAll(async () => {
    await scratch?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${scratchDb} WITH (FORCE)`);
    await admin?.end();
    await env?.teardown();
  });

  test('session housekeeping deletes expired and idle sessions and keeps live ones', async () => {
    await scratch.query(
      `INSERT INTO app_sessions (id, user_id, data, expires_at, last_seen_at) VALUES
        ('expired-1', 'dan@birou.ro', '{}', now() - interval '1 day', now() - interval '1 day'),
        ('expired-2', 'dan@birou.ro', '{}', now() - interval '1 minute', now() - interval '2 minutes'),
        ('expired-3', 'elena@birou.ro', '{}', now() - interval '30 days', now() - interval '30 days'),
        ('idle-1', 'mihai@birou.ro', '{}', now() + interval '7 days', now() - interval '13 hours'),
        ('live-1', 'dan@birou.ro', '{}', now() + interval '1 hour', now() - interval '11 hours'),
        ('live-2', 'ioana@birou.ro', '{}', now() + interval '7 days', now())`,
    );
    const workers = await createQueueWorkers({
      connection: env.nativeConnection,
      namespace: namespaceOf(env),
      deps: { store: storeOn(scratch) },
      queues: [TaskQueue.store],
    });
    const worker = workers.get(TaskQueue.store)!;

    const result = await worker.runUntil(
      env.client.workflow.execute<typeof sessionHousekeeping>('sessionHousekeeping', {
        taskQueue: TaskQueue.store,
        workflowId: jobWorkflowId('session-housekeeping', 'test'),
        args: [],
      }),
    );

    expect(result).toEqual({ deletedSessions: 4 });
    const left = await scratch.query<{ id: string }>('SELECT id FROM app_sessions ORDER BY id');
    expect(left.rows.map((r) => r.id)).toEqual(['live-1', 'live-2']);
  });

  test('ensureSchedules run twice (and concurrently) leaves one schedule per id with the declared spec', async () => {
    // The product's own declarations, ids and queues: the namespace is this file's alone.
    const declared: readonly ScheduleDeclaration[] = schedules;
    const ids = declared.map((d) => d.id);
    try {
      const [first, second] = await Promise.all([
        ensureSchedules(env.client, declared),
        ensureSchedules(env.client, declared),
      ]);
      for (const id of ids) {
        expect([first[id], second[id]].filter((o) => o === 'created')).toHaveLength(1);
      }
      const third = await ensureSchedules(env.client, declared);
      expect(Object.values(third)).toEqual(ids.map(() => 'unchanged'));

      // Listing is eventually consistent (visibility store): wait until our ids show up.
      let listed: string[] = [];
      for (let i = 0; i < 50; i++) {
        listed = [];
        for await (const s of env.client.schedule.list()) listed.push(s.scheduleId);
        if (listed.length >= ids.length) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(listed.sort()).toEqual([...ids].sort());

      for (const decl of declared) {
        const d = await env.client.schedule.getHandle(decl.id).describe();
        expect(d.spec.timezone).toBe(SCHEDULE_TIME_ZONE);
        // The calendar details are those of the housekeeping declaration; other schedules
        // (interval or weekday calendars) are checked by the fields below.
        if (decl.workflowType === 'sessionHousekeeping') {
          expect(d.spec.calendars).toHaveLength(1);
          expect(d.spec.calendars?.[0].minute).toEqual([{ start: 7, end: 7, step: 1 }]);
          expect(d.spec.calendars?.[0].hour).toEqual([{ start: 0, end: 23, step: 1 }]);
        }
        expect(d.action.workflowType).toBe(decl.workflowType);
        expect(d.action.workflowId).toBe(decl.id);
        expect(d.action.taskQueue).toBe(decl.taskQueue);
        expect(d.policies.overlap).toBe('SKIP');
        expect(d.state.note).toBe(decl.description);
        expect(d.info.nextActionTimes.length).toBeGreaterThan(0);
      }

      // A changed declaration updates the schedule in place.
      const moved = declared.map((d) => ({ ...d, calendars: [{ minute: 37, hour: '*' as const }] }));
      const updated = await ensureSchedules(env.client, moved);
      expect(Object.values(updated)).toEqual(ids.map(() => 'updated'));
      const d = await env.client.schedule.getHandle(ids[0]).describe();
      expect(d.spec.calendars?.[0].minute).toEqual([{ start: 37, end: 37, step: 1 }]);
    } finally {
      await Promise.allSettled(ids.map((id) => env.client.schedule.getHandle(id).delete()));
    }
  });
});

describe('Temporal time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await timeSkippingEnv();
  });
  afterAll(async () => {
    await env?.teardown();
  });

  test('a workflow sleeping three days finishes in seconds of wall time', async () => {
    const taskQueue = `time-skipping-${suffix}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await workflowBundleFor(path.join(projectRoot, 'test', 'helpers', 'workflows.ts')),
      sinks: jobMetricSinks(),
    });
    const wallStart = Date.now();
    const slept = await worker.runUntil(
      env.client.workflow.execute<typeof sleepThreeDays>('sleepThreeDays', {
        taskQueue,
        workflowId: jobWorkflowId('sleep-test', 'time-skipping'),
      }),
    );
    expect(slept).toBeGreaterThanOrEqual(3 * 24 * 3600 * 1000);
    expect(Date.now() - wallStart).toBeLessThan(15_000);
  });
});
