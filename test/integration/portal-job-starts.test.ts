/**
 * Spec 3.1's disconnect rule sees a portal job from the moment its start answers. Temporal's
 * listing shows a started workflow a moment later (on a loaded machine, after a user's next
 * click), so every portal job's start is recorded just before it happens (portal_job_starts) and
 * `runningPortalJobs` joins the recent records to the listing, asking Temporal about each by id.
 * The same count caps one user's running portal jobs (PORTAL_JOBS_PER_USER, 4): past it a start
 * is a 429, while a colleague's start goes.
 * Real Temporal (the stack's dev server, this file's own namespace) and PostgreSQL; no worker
 * polls the namespace, so a started sync stays running until the test terminates it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { config } from '../../domain/config';
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

describe("one user's portal jobs are capped; a colleague's are not", () => {
  const CAP = config.limits.portalJobsPerUser;
  const FIRST = SIRUTA + 10;
  const [ana, dan] = ['portal-cap-ana', 'portal-cap-dan'];
  const sync = (siruta: number, startedBy: string) =>
    start('sync-background', { ...syncInput, siruta }, { startedBy, portalStarts: starts() });
  const hers = async () => (await runningPortalJobs(starts())).filter((j) => j.startedBy === ana).map((j) => j.siruta);
  const started: number[] = [];

  afterAll(async () => {
    const client = await getTemporalClient();
    for (const s of started) await client.workflow.getHandle(`uat:${s}`).terminate('test: done').catch(() => undefined);
  });

  test(`past ${CAP} running syncs and exports of hers, a user's next start is a 429 that says why; a colleague's start goes`, async () => {
    expect(CAP).toBe(4);
    for (let i = 0; i < CAP; i++) {
      await sync(FIRST + i, ana);
      started.push(FIRST + i);
    }
    const refused = sync(FIRST + CAP, ana);
    await expect(refused).rejects.toMatchObject({ status: 429, code: 'rate_limited', headers: { 'Retry-After': '30' } });
    await expect(refused).rejects.toThrow('Aveți deja 4 lucrări cu portalul în curs (sincronizări sau exporturi); cel mult 4 o dată.');
    // A second start on a UAT of hers (a double click) is the 409 naming her running job, not a 429.
    await expect(sync(FIRST, ana)).rejects.toMatchObject({ status: 409, code: 'already_running' });
    // The refused start left no record and no workflow behind.
    expect((await records()).map((r) => r.siruta)).not.toContain(FIRST + CAP);
    await expect((await getTemporalClient()).workflow.getHandle(`uat:${FIRST + CAP}`).describe()).rejects.toThrow();

    await sync(FIRST + CAP + 1, dan);
    started.push(FIRST + CAP + 1);
    expect(new Set(await hers())).toEqual(new Set(started.slice(0, CAP)));
  });

  test('a job of hers that ended frees a place; two starts racing for it never both pass', async () => {
    await (await getTemporalClient()).workflow.getHandle(`uat:${FIRST}`).terminate('test: one ends');
    await until('her ended sync to leave the count', async () => !(await hers()).includes(FIRST), 15_000, 100);
    const racing = await Promise.allSettled([sync(FIRST + 20, ana), sync(FIRST + 21, ana)]);
    for (const [i, r] of racing.entries()) if (r.status === 'fulfilled') started.push(FIRST + 20 + i);
    const passed = racing.filter((r) => r.status === 'fulfilled').length;
    expect(passed).toBeLessThanOrEqual(1);
    for (const r of racing) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 429 });
    expect((await hers()).length).toBeLessThanOrEqual(CAP);
    // Whatever the race did, the place left is hers to take now.
    if (passed === 0) {
      await sync(FIRST + 22, ana);
      started.push(FIRST + 22);
    }
    expect((await hers()).length).toBe(CAP);
  });
});
