/**
 * CF ordering bench (issue 15; `npm run bench -- cf`, or alone against a running stack:
 * `npx tsx scripts/bench/60-cf.ts [--batches 20] [--parcels 5] [--latency 200]`).
 * 20 batches of 5 parcels ordered at the same moment through the real API, queued FIFO by the
 * real workflows, against the certificate portal simulator answering every call after 200 ms.
 * JSON lines:
 *   - `creditsSpent`, `extractsCompleted`, `portalOrderItems`, `submits`: every credit accounted for;
 *   - `portalTime`: the portal's own time: the queue's calls x latency (they run one after another),
 *     one latency for the 20 simultaneous credit checks of the orders, and the waits between polls;
 *   - `queueOverheadPerBatch`: (wall time - portal time) / batches, the pipeline's own cost
 *     (workflow and activity scheduling, store writes, S3 puts). Goal: under 1000 ms.
 * Runs its own simulator, workers (task queues of its own) and API in this process; it needs
 * only PostgreSQL, Temporal and MinIO of the stack.
 */
import { performance } from 'node:perf_hooks';
import { closePool } from '../../domain/db/pool';
import { closeTemporalClient } from '../../temporal/client';
import { freshCadastral, sessions, someUats, startCfRig, until } from '../../test/helpers/cfStack';
import { jsonLine, note } from './_shared';

const BENCH = 'cf';
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const BATCHES = arg('batches', 20);
const PARCELS = arg('parcels', 5);
const LATENCY_MS = arg('latency', 200);
/** Pause between two status polls; the simulator answers `processing` for 3 polls. */
const POLL_INTERVAL_MS = 100;
const GOAL_OVERHEAD_MS = 1000;

const rig = await startCfRig({ pollIntervalMs: POLL_INTERVAL_MS, sim: { credits: BATCHES * PARCELS } });
try {
  await rig.startWorkers();
  const who = await sessions(rig.db);
  const uats = someUats(PARCELS, 30);
  // One sign-in before the clock starts, so 20 simultaneous orders do not all sign in at once.
  await fetch(`${rig.base}/api/cfportal/credits`, { headers: { cookie: who.dan.cookie } });
  await rig.simJson('DELETE', '/__sim/requests');
  await rig.simJson('POST', '/__sim/faults', { latencyMs: LATENCY_MS });
  note(BENCH, `${BATCHES} batches x ${PARCELS} parcels, portal latency ${LATENCY_MS} ms`);

  const started = performance.now();
  const orders = await Promise.all(
    Array.from({ length: BATCHES }, async (_, b) => {
      const parcels = uats.map((u, i) => ({ nrCadastral: freshCadastral(b * PARCELS + i), siruta: u.siruta, workspacePk: u.workspacePk }));
      const res = await fetch(`${rig.base}/api/cfportal/order`, {
        method: 'POST',
        headers: { cookie: who.dan.cookie, origin: new URL(rig.base).origin, 'content-type': 'application/json' },
        body: JSON.stringify({ parcels }),
      });
      if (res.status !== 202) throw new Error(`order ${b}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { orderId: string }).orderId;
    }),
  );
  const done = await until(
    'every batch to finish',
    async () => {
      const r = await rig.db.query<{ completed: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status = 'completed' AND current_step = 'done')::int AS completed,
                count(*) FILTER (WHERE status = 'failed')::int AS failed
           FROM cf_extracts WHERE order_id = ANY($1)`,
        [orders],
      );
      const { completed, failed } = r.rows[0];
      return completed + failed === BATCHES * PARCELS ? r.rows[0] : null;
    },
    60 * 60_000,
    100,
  );
  const wallMs = performance.now() - started;
  await rig.simJson('DELETE', '/__sim/faults');

  const truth = await rig.simJson<{ credits: number; orders: Array<{ items: unknown[] }> }>('GET', '/__sim/truth');
  const counts = (await rig.simJson<{ counts: Record<string, number> }>('GET', '/__sim/requests')).counts;
  const calls = Object.entries(counts)
    .filter(([k]) => k.startsWith('route:'))
    .reduce((n, [, v]) => n + v, 0);
  const polls = Object.entries(counts)
    .filter(([k]) => /^route:GET \/cf\/api\/orders\/:orderId$/.test(k))
    .reduce((n, [, v]) => n + v, 0);
  const pollWaits = Math.max(0, polls - BATCHES) * POLL_INTERVAL_MS;
  // Each order's credit check (one call per order) runs concurrently with the others: one latency
  // for the lot. Every other call is made by the queue, one after another.
  const portalMs = (calls - BATCHES) * LATENCY_MS + LATENCY_MS + pollWaits;
  const overheadPerBatch = (wallMs - portalMs) / BATCHES;

  jsonLine(BENCH, 'creditsSpent', BATCHES * PARCELS - truth.credits, 'credits');
  jsonLine(BENCH, 'extractsCompleted', done.completed, 'extracts');
  jsonLine(BENCH, 'extractsFailed', done.failed, 'extracts');
  jsonLine(BENCH, 'portalOrderItems', truth.orders.reduce((n, o) => n + o.items.length, 0), 'items');
  jsonLine(BENCH, 'submits', counts.submit ?? 0, 'calls');
  jsonLine(BENCH, 'everyCreditAccountedFor', BATCHES * PARCELS - truth.credits === done.completed && (counts.submit ?? 0) === BATCHES, 'bool');
  jsonLine(BENCH, 'wallTime', wallMs, 'ms');
  jsonLine(BENCH, 'portalCalls', calls, 'calls');
  jsonLine(BENCH, 'portalTime', portalMs, 'ms');
  jsonLine(BENCH, 'portalTimePerBatch', portalMs / BATCHES, 'ms');
  jsonLine(BENCH, 'queueOverheadPerBatch', overheadPerBatch, 'ms');
  jsonLine(BENCH, 'queueOverheadGoal', GOAL_OVERHEAD_MS, 'ms');
  jsonLine(BENCH, 'queueOverheadWithinGoal', overheadPerBatch < GOAL_OVERHEAD_MS, 'bool');
  const ids = Object.values(who).map((s) => s.data.user.id);
  await rig.db.query(`DELETE FROM notifications WHERE user_id = ANY($1)`, [ids]);
  await Promise.allSettled(Object.values(who).map((s) => s.end()));
} finally {
  await rig.stop();
  await closeTemporalClient();
  await closePool();
}
