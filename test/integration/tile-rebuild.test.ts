/**
 * The tileArchiveRebuild workflow (spec 3.6, section 8) against the real rebuild webhook of this
 * stack: the builder (GDAL + the Protomaps converter) writes the archive to MinIO and the workflow
 * notices its new stamp. The 30-minute give-up runs on the time-skipping test server while the
 * builder is held busy (409 from the webhook, the "already running" state). The webhook starts
 * the overview build workflow in this file's namespace, on an exports worker of the file's own.
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
import { TaskQueue } from '../../temporal/queues';
import { OVERVIEW_BUILD_WORKFLOW_ID, TILE_REBUILD_WORKFLOW_ID, requestTileArchiveRebuild, tileRebuildJob } from '../../temporal/tileArchive';
import { ALL_WORKFLOWS_PATH } from '../../workers/registry';
import { createQueueWorkers, workflowBundleFor } from '../../workers/start';
import type { TileArchiveRebuildResult } from '../../workflows/tileArchiveRebuild';
import { localEnv, timeSkippingEnv, namespaceOf } from '../helpers/temporal';
import { startTestApp } from '../helpers/tilesFixtures';

const BUILD_LOCK = `hashtext('geoportal:tiles:overview-build')`;

let app: { url: string; close(): Promise<void> };

/** The store queue's worker, with the rebuild's activities aimed at this file's app. */
async function worker(env: TestWorkflowEnvironment): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    namespace: namespaceOf(env),
    taskQueue: TaskQueue.store,
    workflowBundle: await workflowBundleFor(ALL_WORKFLOWS_PATH),
    activities: createTileActivities({ webhookUrl: `${app.url}/tiles/rebuild-webhook`, webhookToken: config.tiles.rebuildWebhookToken }),
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
    builder = (await createQueueWorkers({ connection: env.nativeConnection, namespace: namespaceOf(env), deps: { db: getPool() }, queues: [TaskQueue.exports] })).get(TaskQueue.exports)!;
    building = builder.run();
  });
  afterAll(async () => {
    await waitForIdleBuilder();
    builder?.shutdown();
    await building;
    await env?.teardown();
  });

  test('calls the webhook, polls until the archive changes, and reports progress; a second request finds it running', async () => {
    const workflowId = TILE_REBUILD_WORKFLOW_ID;
    const before = await archiveInfo();
    const w = await worker(env);
    await w.runUntil(async () => {
      const first = await requestTileArchiveRebuild(env.client, { pollIntervalMs: 300, timeoutMs: 120_000 });
      expect(first).toEqual({ jobId: workflowId, alreadyRunning: false });
      const second = await requestTileArchiveRebuild(env.client);
      expect(second).toEqual({ jobId: workflowId, alreadyRunning: true });

      const result = (await env.client.workflow.getHandle(workflowId).result()) as TileArchiveRebuildResult;
      // 'already_running' when another test file's build held the builder: equally valid (spec 3.6).
      expect(['started', 'already_running']).toContain(result.webhook);
      expect(result.polls).toBeGreaterThanOrEqual(1);
      expect(result.current.etag).not.toBe(before?.etag);
      expect(result.current.lastModified >= (before?.lastModified ?? '')).toBe(true);

      const job = await tileRebuildJob(env.client, workflowId);
      expect(job).toMatchObject({ jobId: workflowId, status: 'done' });
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

  test('with the builder busy elsewhere (409) and no new archive, the job fails with TileRebuildTimeoutError', async () => {
    // Another build holds the builder forever: the build the webhook starts waits for it (the
    // webhook answers 409 from then on) and the archive never changes.
    await lock.query(`SELECT pg_advisory_lock(${BUILD_LOCK})`);
    try {
      const w = await worker(env);
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
