/**
 * "One at a time" locks the UAT, not the job kind (issue 28, docs/sync.md "Jobs"): a background
 * sync of a UAT is refused with the 409 `already_running` naming the running foreground sync
 * (and the other way round), two different UATs sync side by side, and a county job leaves a UAT
 * that a user's sync holds to that sync, through the real app, workers, Temporal and simulator.
 * The county job reads the whole UAT catalogue, so the file runs against a database of its own
 * holding a catalogue of three Covasna UATs.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import http from 'node:http';
import { createSession, newSessionToken, sessionIdFor } from '../../api/auth/sessionStore';
import { SESSION_COOKIE } from '../../api/auth/cookies';
import { migrate } from '../../domain/db/migrate';
import { closePool, getPool } from '../../domain/db/pool';
import { closeTemporalClient } from '../../temporal/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { jobHandle, progressUrl } from '../../temporal/jobs';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/common/queues';
import type { countySync } from '../../workflows/countySync';
import { rigAppDeps, forgetUat, pickUat, startSyncRig, type SyncRig } from '../helpers/landregStack';
import { scratchDatabase } from '../helpers/scratchDb';
import { createApp } from '../../api/app';
import { callJson, listenApp } from '../helpers/appServer';

const COVASNA = 145;
const scratch = scratchDatabase('geoportal_sync_locks_test');

let rig: SyncRig;
let server: http.Server;
let base: string;
let cookie: string;
/** Catalogue order (smallest SIRUTA first), the order a county job takes them in. */
let uats: Array<{ siruta: number; name: string }>;

const api = (method: string, path: string, body?: unknown) => callJson(base, method, path, { body, cookie });

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The job id of the running foreground sync of a UAT (the waiting route names no job until it
 * answers): the run under the UAT's lock, `uat:<siruta>`, whose memo names the job.
 */
function runningForegroundSync(siruta: number): Promise<string> {
  return waitFor(`a running sync of ${siruta}`, async () => {
    try {
      const run = await rig.env.client.workflow.getHandle(`uat:${siruta}`).describe();
      return run.status.name === 'RUNNING' && String(run.memo?.jobId).startsWith(`sync:${siruta}:`) ? String(run.memo!.jobId) : undefined;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  });
}

async function status(jobId: string): Promise<string> {
  return (await (await jobHandle(jobId, rig.env.client))!.describe()).status.name;
}

async function finished(jobId: string): Promise<{ status: string }> {
  return waitFor(`${jobId} finished`, async () => {
    const p = await api('GET', progressUrl(jobId));
    return p.status === 200 && p.body.status !== 'running' ? p.body : undefined;
  });
}

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  rig = await startSyncRig({ dbUrl: scratch.url });
  const picked = await Promise.all([0, 1, 2].map((rank) => pickUat(rig, COVASNA, rank)));
  uats = picked.sort((a, b) => a.siruta - b.siruta);
  for (const u of uats) {
    await rig.db.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Covasna', $3)`, [u.siruta, u.name, COVASNA]);
  }
  const token = newSessionToken();
  const far = Date.now() + 3_600_000;
  await createSession(rig.db, sessionIdFor(token), {
    v: 1,
    user: { id: `locks-${rig.suffix}`, email: 'locks@birou.ro', name: 'locks', company: 'B' },
    groups: [],
    enrichmentScope: 'full',
    flags: { useCentralApi: false, basicPanel: false, isAdmin: false },
    tokens: { accessToken: 'test', accessTokenExpiresAt: far, refreshAt: far },
  });
  cookie = `${SESSION_COOKIE}=${token}`;
  ({ server, base } = await listenApp(createApp(rigAppDeps(rig))));
  expect((await api('POST', '/api/landreg/login', {})).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await rig?.simJson('DELETE', '/__sim/faults');
  await new Promise((r) => server?.close(r));
  await getPool().query(`DELETE FROM app_sessions WHERE user_id = $1`, [`locks-${rig?.suffix}`]);
  await rig?.stop();
  await scratch.drop();
  await closeTemporalClient();
  await closePool();
});

describe('one sync of a UAT at a time, whatever its kind', () => {
  test('a background sync is refused while a foreground sync of the same UAT runs, and the other way round; another UAT syncs beside it', async () => {
    const [a, b] = [uats[0].siruta, uats[1].siruta];
    await Promise.all([forgetUat(rig.db, a), forgetUat(rig.db, b)]);
    // The portal holds both UATs' queries: both syncs stay running until the test lets them go.
    await rig.simJson('POST', '/__sim/faults', { holdSirutas: [a, b] });
    try {
      const foreground = api('POST', '/api/landreg/sync', { siruta: a, layer: 'TERENURI_ACTIVE' });
      const fgId = await runningForegroundSync(a);

      const twin = await api('POST', '/api/landreg/sync-background', { siruta: a, mode: 'base' });
      expect(twin.status).toBe(409);
      expect(twin.body).toMatchObject({ error: 'already_running', jobId: fgId, progressUrl: progressUrl(fgId) });

      const other = await api('POST', '/api/landreg/sync-background', { siruta: b, mode: 'base' });
      expect(other.status).toBe(202);
      expect(other.body.jobId).toMatch(new RegExp(`^sync-background:${b}:[0-9A-Z]{26}$`));
      // Both at once: the other UAT's sync was accepted while the first one still ran.
      expect([await status(fgId), await status(other.body.jobId)]).toEqual(['RUNNING', 'RUNNING']);

      await rig.simJson('DELETE', '/__sim/faults');
      expect((await foreground).status).toBe(200);
      expect(await finished(other.body.jobId)).toMatchObject({ status: 'done' });

      await rig.simJson('POST', '/__sim/faults', { holdSirutas: [a] });
      const background = await api('POST', '/api/landreg/sync-background', { siruta: a, mode: 'base' });
      expect(background.status).toBe(202);
      const waiting = await api('POST', '/api/landreg/sync', { siruta: a, layer: 'TERENURI_ACTIVE' });
      expect(waiting.status).toBe(409);
      expect(waiting.body).toMatchObject({ error: 'already_running', jobId: background.body.jobId });
      await rig.simJson('DELETE', '/__sim/faults');
      expect(await finished(background.body.jobId)).toMatchObject({ status: 'done' });
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  });

  test("a county job leaves a UAT a user's sync holds to that sync and syncs the others", async () => {
    const held = uats[0];
    // The user's sync stays running, its portal queries held, until the county job has ended.
    await rig.simJson('POST', '/__sim/faults', { holdSirutas: [held.siruta] });
    let userJob: string;
    let result;
    try {
      const r = await api('POST', '/api/landreg/sync-background', { siruta: held.siruta, mode: 'base' });
      expect(r.status).toBe(202);
      userJob = r.body.jobId;
      result = await rig.env.client.workflow.execute<typeof countySync>('countySync', {
        taskQueue: TaskQueue.store,
        workflowId: jobWorkflowId('sync-county', `covasna-${rig.suffix}`),
        args: [{ county: 'Covasna', requestTileRebuild: false }],
      });
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
    expect(result.uats.find((u) => u.siruta === held.siruta)).toMatchObject({ status: 'skipped', runningJobId: userJob });
    for (const u of uats.slice(1)) expect(result.uats.find((x) => x.siruta === u.siruta)).toMatchObject({ status: 'done' });
    expect(result).toMatchObject({ done: uats.length - 1, failed: 0, skipped: 1 });
    expect(await finished(userJob)).toMatchObject({ status: 'done' });

    // The county's children released their UATs: a user's sync of one starts at once.
    const after = await api('POST', '/api/landreg/sync-background', { siruta: uats[1].siruta, mode: 'base' });
    expect(after.status).toBe(202);
    expect(await finished(after.body.jobId)).toMatchObject({ status: 'done' });
  });
});
