/**
 * Spec 3.1's disconnect rule sees a portal job from the moment its start answers. Temporal's
 * listing shows a started workflow a moment later (on a loaded machine, after a user's next
 * click), so every portal job's start is recorded just before it happens (portal_job_starts) and
 * `runningPortalJobs` joins the recent records to the listing, asking Temporal about each by id.
 * Real Temporal (the stack's dev server, this file's own namespace) and PostgreSQL; no worker
 * polls the namespace, so a started sync stays running until the test terminates it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { closePool, getPool } from '../../domain/db/pool';
import { START_IN_FLIGHT_MS } from '../../domain/landreg/rules';
import { portalStartRecords } from '../../domain/landreg/service';
import { closeTemporalClient, getTemporalClient } from '../../temporal/client';
import { runningPortalJobs, start } from '../../temporal/jobs';
import { testNamespace } from '../helpers/temporal';
import { until } from '../helpers/wait';

const SIRUTA = 990_451;
let namespace: string;

const records = async () =>
  (await getPool().query<{ job_id: string; kind: string; siruta: number | null }>(`SELECT job_id, kind, siruta FROM portal_job_starts WHERE namespace = $1 ORDER BY started_at`, [namespace]))
    .rows;
const starts = () => portalStartRecords(getPool());
const runningIds = async () => (await runningPortalJobs(starts())).map((j) => j.jobId);
const syncInput = { siruta: SIRUTA, layers: ['TERENURI_ACTIVE'], mode: 'base' as const, trigger: 'manual' as const };

beforeAll(async () => {
  namespace = await testNamespace();
});

afterAll(async () => {
  await getPool().query(`DELETE FROM portal_job_starts WHERE namespace = $1`, [namespace]);
  await closeTemporalClient();
  await closePool();
});

describe('the disconnect rule sees a portal job from its start', () => {
  let jobId: string;

  test('a started sync is running at once, and its start is on record', async () => {
    const started = await start('sync-background', syncInput, { portalStarts: starts() });
    jobId = started.jobId;
    // Asked right after the start answered, before any wait for Temporal's listing.
    expect(await runningPortalJobs(starts())).toContainEqual({ jobId, kind: 'sync-background', siruta: SIRUTA });
    expect(await records()).toEqual([{ job_id: jobId, kind: 'sync-background', siruta: SIRUTA }]);
  });

  test('a refused twin leaves no record behind', async () => {
    await expect(start('sync-background', syncInput, { portalStarts: starts() })).rejects.toMatchObject({
      status: 409,
      code: 'already_running',
    });
    expect((await records()).map((r) => r.job_id)).toEqual([jobId]);
  });

  test('a start in flight counts; one whose starter died before Temporal knew it stops counting', async () => {
    const ghost = `sync-background:${SIRUTA + 1}:01KZZZZZZZZZZZZZZZZZZZZZZZ`;
    expect(await starts().record(namespace, { jobId: ghost, workflowId: `uat:${SIRUTA + 1}`, kind: 'sync-background', siruta: SIRUTA + 1 })).toBe(true);
    expect(await runningIds()).toContain(ghost);
    await getPool().query(`UPDATE portal_job_starts SET started_at = started_at - make_interval(secs => $3::float8 / 1000) WHERE namespace = $1 AND job_id = $2`, [
      namespace,
      ghost,
      START_IN_FLIGHT_MS + 1000,
    ]);
    expect(await runningIds()).not.toContain(ghost);
  });

  test('a job that ended no longer counts, though its start is recent', async () => {
    const client = await getTemporalClient();
    await client.workflow.getHandle(`uat:${SIRUTA}`).terminate('test: the sync ends');
    // The listing drops it a moment later; the record must not keep it alive meanwhile or after.
    await until('the ended sync to leave the running portal jobs', async () => !(await runningIds()).includes(jobId), 15_000, 100);
    expect((await records()).map((r) => r.job_id)).toContain(jobId);
  });
});
