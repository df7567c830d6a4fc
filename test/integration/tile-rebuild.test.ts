/**
 * The tileArchiveRebuild job (spec 3.6, section 8) with both builders. Ours: the job starts the
 * overviewArchiveBuild workflow as a child (GDAL + the Protomaps converter write the archive to
 * MinIO), or, when a build already runs, waits for the end that build signals, with no HTTP call
 * to our own webhook. An outside tile server: its webhook is called (here our own app's
 * `/tiles/rebuild-webhook` plays it) and the archive's stamp polled until it changes. The
 * 30-minute give-up runs on the time-skipping test server for both. Builds run on an exports
 * worker of the file's own namespace.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { WorkflowFailedError } from '@temporalio/client';
import pg from 'pg';
import { createTileActivities } from '../../activities/tiles';
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { ensureBuckets } from '../../domain/storage/s3';
import { archiveInfo } from '../../domain/tiles/archiveStore';
import { closeTemporalClient, getTemporalClient } from '../../temporal/client';
import { TaskQueue } from '../../temporal/common/queues';
import { OVERVIEW_BUILD_WORKFLOW_ID, TILE_REBUILD_WORKFLOW_ID } from '../../temporal/common/singletons';
import { requestTileArchiveRebuild, tileRebuildJob } from '../../temporal/tileArchive';
import { ALL_WORKFLOWS_PATH } from '../../workers/registry';
import { createQueueWorkers, workflowBundleFor } from '../../workers/start';
import { jobMetricSinks } from '../../workers/metrics';
import type { OverviewArchiveBuildResult, TileArchiveRebuildResult, TileRebuildProgress } from '../../domain/tiles/jobTypes';
import { heartbeatsOf, localEnv, timeSkippingEnv, namespaceOf } from '../helpers/temporal';
import { startTestApp } from '../helpers/tilesFixtures';
import { storeOn } from '../../domain/db/store';

const BUILD_LOCK = `hashtext('geoportal:tiles:overview-build')`;

let app: { url: string; close(): Promise<void> };

/** The store queue's worker: our builder, or an outside one behind this file's app's webhook. */
async function worker(env: TestWorkflowEnvironment, builder: 'ours' | 'webhook'): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    namespace: namespaceOf(env),
    taskQueue: TaskQueue.store,
    workflowBundle: await workflowBundleFor(ALL_WORKFLOWS_PATH),
    sinks: jobMetricSinks(),
    activities: createTileActivities({
      webhook: builder === 'webhook' ? { url: `${app.url}/tiles/rebuild-webhook`, token: config.tiles.rebuildWebhookToken } : null,
    }),
  });
}

/** The overview build workflow the webhook started, if any, has ended. */
async function waitForIdleBuilder(): Promise<void> {
  const client = await getTemporalClient();
  await client.workflow
    .getHandle(OVERVIEW_BUILD_WORKFLOW_ID)
    .result()
    .catch(() => undefined);
}

// The archive is built from whatever the store holds (an empty store builds too), so this file
// plants nothing; tiles.test.ts checks the archive's content.
beforeAll(async () => {
  await ensureBuckets();
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
  await closeTemporalClient();
  await closePool();
});

describe('tileArchiveRebuild on the dev server', () => {
  let env: TestWorkflowEnvironment;
  let builder: Worker;
  let building: Promise<void>;
  beforeAll(async () => {
    env = await localEnv();
    // The overview build the webhook starts runs on the exports queue, as in production.
    builder = (await createQueueWorkers({ connection: env.nativeConnection, namespace: namespaceOf(env), deps: { store: storeOn(getPool()) }, queues: [TaskQueue.exports] })).get(TaskQueue.exports)!;
    building = builder.run();
  });
  afterAll(async () => {
    await waitForIdleBuilder();
    builder?.shutdown();
    await building;
    await env?.teardown();
  });

  test('ours: starts the build as a child and ends with it; a second request finds it running', async () => {
    const workflowId = TILE_REBUILD_WORKFLOW_ID;
    const before = await archiveInfo();
    const w = await worker(env, 'ours');
    await w.runUntil(async () => {
      const first = await requestTileArchiveRebuild(env.client);
      expect(first).toEqual({ jobId: workflowId, alreadyRunning: false });
      const second = await requestTileArchiveRebuild(env.client);
      expect(second).toEqual({ jobId: workflowId, alreadyRunning: true });

      const result = (await env.client.workflow.getHandle(workflowId).result()) as TileArchiveRebuildResult;
      expect(result).toMatchObject({ builder: 'ours', build: 'started' });
      // The build this job started as a child is the one that ended it.
      const build = (await env.client.workflow.getHandle(OVERVIEW_BUILD_WORKFLOW_ID).result()) as OverviewArchiveBuildResult;
      expect(result.builder === 'ours' && result.buildId).toBe(build.buildId);
      const after = await archiveInfo();
      expect(after?.etag).not.toBe(before?.etag);

      const job = await tileRebuildJob(env.client, workflowId);
      expect(job).toMatchObject({ jobId: workflowId, status: 'done' });
      // A worker killed in a step costs the job 20 s (the build, which heartbeats its phase, a minute).
      expect(await heartbeatsOf(env.client, workflowId)).toEqual({ archiveBuilder: 20_000, buildOverviewArchive: 60_000 });
    });
  });

  test('ours: a build already running (started over the webhook route) ends the job when it signals its end', async () => {
    const lock = new pg.Client({ connectionString: config.db.url });
    await lock.connect();
    // The build waits for the lock, so the rebuild surely finds it running.
    await lock.query(`SELECT pg_advisory_lock(${BUILD_LOCK})`);
    let locked = true;
    try {
      const hook = await fetch(`${app.url}/tiles/rebuild-webhook`, { method: 'POST', headers: { Authorization: `Bearer ${config.tiles.rebuildWebhookToken}` } });
      expect(hook.status).toBe(202);
      const w = await worker(env, 'ours');
      await w.runUntil(async () => {
        await requestTileArchiveRebuild(env.client);
        const handle = env.client.workflow.getHandle(TILE_REBUILD_WORKFLOW_ID);
        // What the monitor shows (`GET /api/geoportal/tiles/status` `job.progress`).
        let progress: TileRebuildProgress | undefined;
        for (let i = 0; i < 100 && progress?.phase !== 'building'; i++) {
          progress = (await tileRebuildJob(env.client))?.progress;
          if (progress?.phase !== 'building') await new Promise((r) => setTimeout(r, 100));
        }
        expect(progress).toMatchObject({ phase: 'building', build: 'already_running', status: 'running' });

        await lock.query(`SELECT pg_advisory_unlock(${BUILD_LOCK})`);
        locked = false;
        const result = (await handle.result()) as TileArchiveRebuildResult;
        const build = (await env.client.workflow.getHandle(OVERVIEW_BUILD_WORKFLOW_ID).result()) as OverviewArchiveBuildResult;
        expect(result).toEqual({ builder: 'ours', build: 'already_running', buildId: build.buildId, waitedMs: expect.any(Number) });
      });
    } finally {
      if (locked) await lock.query(`SELECT pg_advisory_unlock(${BUILD_LOCK})`);
      await lock.end();
    }
  });

  test('ours: gives up at its limit while the build it waits for does not end', async () => {
    const lock = new pg.Client({ connectionString: config.db.url });
    await lock.connect();
    await lock.query(`SELECT pg_advisory_lock(${BUILD_LOCK})`);
    try {
      const w = await worker(env, 'ours');
      const err = await w.runUntil(
        env.client.workflow
          .execute('tileArchiveRebuild', { taskQueue: TaskQueue.store, workflowId: TILE_REBUILD_WORKFLOW_ID, args: [{ timeoutMs: 3_000 }] })
          .then(
            () => null,
            (e: unknown) => e,
          ),
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as { type?: string; details?: unknown[] };
      expect(cause.type).toBe('TileRebuildTimeoutError');
      expect(cause.details?.[0]).toEqual({ polls: 0, limitMs: 3_000 });
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(${BUILD_LOCK})`);
      await lock.end();
    }
    // The build the job started stays (abandoned) and ends once the lock is gone.
    await waitForIdleBuilder();
  });

  test('an outside tile server: calls its webhook and polls until the archive changes', async () => {
    await waitForIdleBuilder();
    const workflowId = TILE_REBUILD_WORKFLOW_ID;
    const before = await archiveInfo();
    const w = await worker(env, 'webhook');
    await w.runUntil(async () => {
      const first = await requestTileArchiveRebuild(env.client, { pollIntervalMs: 300, timeoutMs: 120_000 });
      expect(first).toEqual({ jobId: workflowId, alreadyRunning: false });

      const result = (await env.client.workflow.getHandle(workflowId).result()) as TileArchiveRebuildResult;
      if (result.builder !== 'webhook') throw new Error(`expected the webhook builder, got ${result.builder}`);
      expect(result.webhook).toBe('started');
      expect(result.polls).toBeGreaterThanOrEqual(1);
      expect(result.current.etag).not.toBe(before?.etag);
      expect(result.current.lastModified >= (before?.lastModified ?? '')).toBe(true);
    });
  });
});

describe('tileArchiveRebuild gives up after 30 minutes (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let lock: pg.Client;
  beforeAll(async () => {
    env = await timeSkippingEnv();
    lock = new pg.Client({ connectionString: config.db.url });
    await lock.connect();
  });
  afterAll(async () => {
    await lock?.end();
    await env?.teardown();
    // The build the webhook started in this file's namespace has no worker any more.
    await (await getTemporalClient()).workflow.getHandle(OVERVIEW_BUILD_WORKFLOW_ID).terminate('test over').catch(() => undefined);
  });

  test('an outside builder busy elsewhere (409) and no new archive: the job fails with TileRebuildTimeoutError', async () => {
    // Another build holds the builder forever: the build the webhook starts waits for it (the
    // webhook answers 409 from then on) and the archive never changes.
    await lock.query(`SELECT pg_advisory_lock(${BUILD_LOCK})`);
    try {
      const w = await worker(env, 'webhook');
      const wallStart = Date.now();
      const err = await w.runUntil(
        env.client.workflow
          .execute('tileArchiveRebuild', { taskQueue: TaskQueue.store, workflowId: TILE_REBUILD_WORKFLOW_ID, args: [{}] })
          .then(
            () => null,
            (e: unknown) => e,
          ),
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as { type?: string; message?: string; details?: unknown[] };
      expect(cause.type).toBe('TileRebuildTimeoutError');
      expect(cause.message).toMatch(/30 minute/);
      // 15 s polls over 30 minutes: 120, less one or a few when the activities before the loop took
      // real seconds (the time-skipping clock runs in real time while an activity runs).
      const details = cause.details?.[0] as { polls: number; limitMs: number };
      expect(details.limitMs).toBe(30 * 60_000);
      expect(details.polls).toBeGreaterThanOrEqual(110);
      expect(details.polls).toBeLessThanOrEqual(120);
      expect(Date.now() - wallStart).toBeLessThan(55_000);
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(${BUILD_LOCK})`);
    }
  });
});
