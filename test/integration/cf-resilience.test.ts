/**
 * Exactly-once CF ordering under a worker crash (issue 15 item 6): the workers run in a CHILD
 * PROCESS (the same wiring as workers/main.ts) on this run's task queues; the process is
 * SIGKILLed once the portal holds the submitted order but before the documents are downloaded,
 * then restarted. The batch completes with ONE submit, its credits spent once, every PDF stored.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { closePool } from '../../domain/db/pool';
import { closeTemporalClient } from '../../temporal/client';
import { freshCadastral, sessions, someUats, startCfRig, until, type CfRig } from '../helpers/cfStack';
import type { TestSession } from '../helpers/session';
import type { WorkerChild } from '../helpers/syncWorkerChild';

let rig: CfRig;
let dan: TestSession;
let worker: WorkerChild | null;

beforeAll(async () => {
  // Orders stay processing for 4 polls, 1 s apart: time enough to kill the worker after the submit.
  rig = await startCfRig({ sim: { pollsUntilDone: 4 }, pollIntervalMs: 1000 });
  worker = await rig.startWorkers(true);
  const all = await sessions(rig.db);
  dan = all.dan;
  await Promise.allSettled([all.ana.end(), all.elena.end(), all.ioana.end()]);
}, 180_000);

afterAll(async () => {
  await rig?.db.query(`DELETE FROM notifications WHERE user_id = $1`, [dan?.data.user.id]);
  await dan?.end();
  await worker?.kill('SIGTERM');
  await rig?.stop();
  await closeTemporalClient();
  await closePool();
}, 60_000);

test('worker SIGKILLed between submit and download: the batch completes with exactly one submit', async () => {
  const uats = someUats(3, 10);
  const parcels = uats.map((u, i) => ({ nrCadastral: freshCadastral(i), siruta: u.siruta, workspacePk: u.workspacePk }));
  const res = await rig.api('POST', '/api/cfportal/order', dan, { parcels });
  expect(res.status).toBe(202);
  const { orderId } = res.body as { orderId: string };

  // The portal has the order (the submit happened), no document is stored yet: kill.
  await until('the portal to hold the submitted order', async () => (await rig.truth()).orders.length === 1, 120_000, 50);
  const stored = await rig.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cf_extracts WHERE order_id = $1 AND s3_key IS NOT NULL`, [orderId]);
  expect(stored.rows[0].n).toBe(0);
  expect(await worker!.kill('SIGKILL')).toBe('SIGKILL');

  worker = await rig.startWorkers(true);
  const rows = await until(
    'the batch to finish after the restart',
    async () => {
      const r = await rig.db.query<{ status: string; current_step: string; s3_key: string | null; portal_order_id: string }>(
        `SELECT status, current_step, s3_key, portal_order_id FROM cf_extracts WHERE order_id = $1`,
        [orderId],
      );
      return r.rows.every((x) => x.current_step === 'done' || x.status === 'failed') ? r.rows : null;
    },
    150_000,
    500,
  );
  expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  expect(rows.every((r) => r.s3_key !== null)).toBe(true);
  const truth = await rig.truth();
  expect(truth.orders).toHaveLength(1);
  expect(new Set(rows.map((r) => r.portal_order_id))).toEqual(new Set([truth.orders[0].id]));
  expect(truth.credits).toBe(47);
  expect((await rig.requestCounts()).submit).toBe(1);
  // One notification for the batch, even if the notify step ran again after the restart.
  const n = await rig.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM notifications WHERE user_id = $1 AND type = 'cf-extract-ready' AND idempotency_key LIKE $2`,
    [dan.data.user.id, `cf-extract-ready:${orderId}:%`],
  );
  expect(n.rows[0].n).toBe(1);
}, 300_000);
