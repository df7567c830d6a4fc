/**
 * Backups as an administrator sees them (CONTRACT.md section 6): `POST /api/admin/backups` starts
 * a backup of the test stack's store as a Temporal job (409 while it runs), `GET` lists it with
 * how far the WAL archive reaches, `GET /api/health` turns its `backup` check green and names the
 * portal; a new store is not red before its first backup is due; a failed backup and a late one
 * notify the administrators in-app and by e-mail. The job runs on this file's workers in its own
 * namespace, against the stack's PostgreSQL and its repository (the drill in backup-restore.test.ts
 * restores on a cluster of its own).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import http from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../../api/app';
import { pgDataDir, repoBackups, stackTarget } from '../../domain/backup/pgbackrest';
import { backupRuns, stackRepo } from '../../domain/backup/runs';
import { config } from '../../domain/config';
import { createStore } from '../../domain/db/store';
import { processServices } from '../../temporal/services';
import { closeTemporalClient, getTemporalClient } from '../../temporal/client';
import { TaskQueue, type TaskQueueName } from '../../temporal/common/queues';
import { createQueueWorkers } from '../../workers/start';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { localEnv, namespaceOf } from '../helpers/temporal';
import { listenApp } from '../helpers/appServer';

const store = createStore();
// The backup area as the workers hold it, on this file's store; no e-mail delivery is started here.
const { backup } = processServices(store, { mail: null });
let server: http.Server;
let base: string;
let env: TestWorkflowEnvironment;
let workers: Map<TaskQueueName, Worker>;
let runs: Promise<void>[];
let ana: TestSession;
let dan: TestSession;

async function call(method: string, p: string, who?: TestSession) {
  const res = await fetch(`${base}${p}`, { method, headers: who ? { cookie: who.cookie } : {} });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function notificationsOf(userId: string): Promise<Array<{ title: string; body: string; email_channel: string | null }>> {
  const r = await store.pool.query(`SELECT title, body, email_channel FROM notifications WHERE user_id = $1 AND type = 'backup-failed' ORDER BY created_at`, [userId]);
  return r.rows;
}

beforeAll(async () => {
  env = await localEnv();
  workers = await createQueueWorkers({ connection: env.nativeConnection, namespace: namespaceOf(env), deps: { store }, queues: [TaskQueue.store, TaskQueue.notifications] });
  runs = [...workers.values()].map((w) => w.run());
  ({ server, base } = await listenApp(createApp({ store })));
  ana = await createTestSessionRecord({ email: 'ana@birou.ro', name: 'Ana Admin', company: 'B', groups: ['admin'] });
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', name: 'Dan', company: 'U' });
}, 120_000);

afterAll(async () => {
  for (const s of [ana, dan]) await s?.end();
  await new Promise((r) => server?.close(r));
  for (const w of workers?.values() ?? []) w.shutdown();
  await Promise.allSettled(runs ?? []);
  await env?.teardown();
  await closeTemporalClient();
  await store.close();
});

describe('backups for administrators', () => {
  test('only an administrator lists or starts backups', async () => {
    expect((await call('GET', '/api/admin/backups')).status).toBe(401);
    const refused = await call('GET', '/api/admin/backups', dan);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect((await call('POST', '/api/admin/backups', dan)).status).toBe(403);
  });

  test('a backup started now runs as a job, refuses a second start, is listed and turns health green', async () => {
    const started = await call('POST', '/api/admin/backups', ana);
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ jobId: 'backup:repository', progressUrl: expect.stringContaining('backup%3Arepository') });
    const again = await call('POST', '/api/admin/backups', ana);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'already_running' });

    const client = await getTemporalClient();
    const run = await client.workflow.getHandle(started.body.jobId).result();
    expect(run).toMatchObject({ status: 'done' });

    const list = await call('GET', '/api/admin/backups', ana);
    expect(list.status).toBe(200);
    expect(list.body.items[0]).toEqual({
      id: run.id, type: run.type, startedAt: run.startedAt, endedAt: run.endedAt, sizeBytes: run.sizeBytes, status: 'done',
    });
    expect(['full', 'diff']).toContain(list.body.items[0].type);
    expect(list.body.items[0].sizeBytes).toBeGreaterThan(0);
    // The retention deleted the records of the sets it expired with them: every listed done run's
    // set is one pgBackRest still holds (the same day's earlier sets are expired; the newest stays).
    const held = new Set((await repoBackups(stackTarget(pgDataDir()))).map((b) => b.label));
    const records = await backupRuns(stackRepo());
    expect(records.filter((r) => r.label && !held.has(r.label)).map((r) => r.id)).toEqual([]);
    expect(held.has(records.find((r) => r.id === run.id)!.label!)).toBe(true);
    // The backup's end pushed its WAL into the archive.
    expect(Date.parse(list.body.walArchivedUpTo)).toBeGreaterThanOrEqual(Date.parse(run.startedAt));

    const health = await call('GET', '/api/health', ana);
    expect(health.status).toBe(200);
    expect(health.body.checks.backup).toMatchObject({ ok: true, lastAt: run.endedAt, since: expect.any(String) });
    expect(health.body.checks.backup.ageSeconds).toBeLessThan(600);
    expect(health.body.checks.portal).toMatchObject({ ok: expect.any(Boolean), since: expect.any(String) });
    for (const key of ['database', 'temporal', 'storage', 'mail']) expect(health.body.checks[key].since).toEqual(expect.any(String));
  }, 240_000);

  test('a new store without a backup is not red until its first backup is due, and red once it failed', async () => {
    // A repository of its own that no backup ever reached: the test stack's store is minutes old.
    const stanza = config.backup.stanza;
    (config.backup as { stanza: string }).stanza = `new-${Date.now().toString(36)}`;
    try {
      const fresh = await call('GET', '/api/health', ana);
      expect(fresh.body.checks.backup).toMatchObject({ ok: true, lastAt: null, ageSeconds: null, detail: expect.stringContaining('02:30') });
      // The hourly watch tells nobody either.
      expect(await backup.checkAge()).toMatchObject({ ok: true, pending: true, notified: 0 });

      // Its first backup fails (the stanza was never created): red at once, without waiting 26 h.
      await expect(backup.runBackup({ id: 'first-fails' })).rejects.toThrow(/pgbackrest/);
      const failed = await call('GET', '/api/health', ana);
      expect(failed.body.ok).toBe(false);
      expect(failed.body.checks.backup).toMatchObject({ ok: false, lastAt: null, detail: 'nicio copie de siguranță reușită încă' });
    } finally {
      (config.backup as { stanza: string }).stanza = stanza;
    }
  });

  test('a backup older than 26 hours notifies every administrator once, in-app and by e-mail', async () => {
    const later = new Date(Date.now() + 27 * 3600_000);
    const first = await backup.checkAge(later);
    expect(first.ok).toBe(false);
    expect(first.notified).toBeGreaterThan(0);
    const notes = await notificationsOf(ana.data.user.id);
    expect(notes).toEqual([expect.objectContaining({ title: 'Copia de siguranță este întârziată', email_channel: 'instant' })]);
    expect(notes[0].body).toContain('acum 27 de ore');
    // The next hourly check of the same late backup tells nobody again.
    expect((await backup.checkAge(new Date(later.getTime() + 3600_000))).notified).toBe(0);
  });

  test('a failed backup fails its job and notifies the administrators', async () => {
    // A stanza never created: pgBackRest refuses the backup, as it does a repository gone missing.
    const stanza = config.backup.stanza;
    (config.backup as { stanza: string }).stanza = `missing-${Date.now().toString(36)}`;
    try {
      const started = await call('POST', '/api/admin/backups', ana);
      expect(started.status).toBe(202);
      const client = await getTemporalClient();
      await expect(client.workflow.getHandle(started.body.jobId).result()).rejects.toThrow();
      const failed = (await notificationsOf(ana.data.user.id)).filter((n) => n.title === 'Copia de siguranță a eșuat');
      expect(failed).toHaveLength(1);
      expect(failed[0].body).toContain('pgbackrest');
      const list = await call('GET', '/api/admin/backups', ana);
      expect(list.body.items[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('pgbackrest') });
    } finally {
      (config.backup as { stanza: string }).stanza = stanza;
    }
  }, 240_000);
});
