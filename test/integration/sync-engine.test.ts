/**
 * The layer sync engine end to end: the land-registry simulator, real PostGIS, real Temporal
 * workers (own task queues). Each scenario checks the store against /__sim/truth and the
 * portal traffic against /__sim/requests.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/queues';
import type { layerSync } from '../../workflows/layerSync';
import { forgetUat, pickUat, startSyncRig, storedLayer, truthLayer, type SyncRig } from '../helpers/landregStack';

const LAYER = 'TERENURI_ACTIVE';
let rig: SyncRig;
let siruta: number;

function sync(opts: { forceFullSync?: boolean; layerId?: string } = {}) {
  return rig.env.client.workflow.execute<typeof layerSync>('layerSync', {
    taskQueue: TaskQueue.store,
    workflowId: jobWorkflowId('layer-sync', `${siruta}-test`),
    args: [{ siruta, layerId: opts.layerId ?? LAYER, forceFullSync: opts.forceFullSync, trigger: 'manual' }],
  });
}

async function expectStoreEqualsTruth(layerId = LAYER) {
  const [stored, truth] = await Promise.all([storedLayer(rig.db, siruta, layerId), truthLayer(rig, siruta, layerId)]);
  expect(stored.size).toBe(truth.size);
  expect([...stored.entries()].sort((a, b) => a[0] - b[0])).toEqual([...truth.entries()].sort((a, b) => a[0] - b[0]));
}

async function requests(): Promise<Record<string, number>> {
  return (await rig.simJson<{ counts: Record<string, number> }>('GET', '/__sim/requests')).counts;
}

beforeAll(async () => {
  rig = await startSyncRig();
  // Brăila (workspace 92), the third-smallest UAT: this file's own data.
  siruta = (await pickUat(rig, 92, 2)).siruta;
  await forgetUat(rig.db, siruta);
}, 120_000);

afterAll(async () => {
  await rig?.stop();
});

describe('layer sync', () => {
  test('the first sync is full and the store equals the portal', async () => {
    const run = await sync();
    expect(run).toMatchObject({ status: 'done', mode: 'full', siruta, layerId: LAYER, removed: 0 });
    expect(run.added).toBe(run.remoteCount);
    expect(run.added).toBeGreaterThan(0);
    await expectStoreEqualsTruth();
    const row = await rig.db.query(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND geom IS NOT NULL`, [siruta, LAYER]);
    expect(row.rows[0].n).toBeGreaterThan(0.9 * run.added);
  });

  test('an unchanged UAT makes no feature download', async () => {
    await rig.simJson('DELETE', '/__sim/requests');
    const run = await sync();
    expect(run).toMatchObject({ status: 'done', mode: 'delta', added: 0, removed: 0, reenrichMarked: 0, pages: 0 });
    const counts = await requests();
    expect(counts[`query:features:${LAYER}:${siruta}`]).toBeUndefined();
    expect(counts[`query:count:${LAYER}:${siruta}`]).toBe(1);
    await expectStoreEqualsTruth();
  });

  test('an unchanged enriched UAT reads the documentation probe as attributes, with no feature download', async () => {
    // Parcels enriched earlier (as an enrichment run leaves them): the rolling probe asks the
    // portal for their VALID_FROM, attributes only.
    const enriched = await rig.db.query(
      `UPDATE gis_features SET enrichment = '{}'::jsonb, enriched_at = now() - interval '1 day'
        WHERE siruta = $1 AND layer_id = $2 AND object_id IN (
          SELECT object_id FROM gis_features WHERE siruta = $1 AND layer_id = $2 ORDER BY object_id LIMIT 25)`,
      [siruta, LAYER],
    );
    expect(enriched.rowCount).toBe(25);
    await rig.simJson('DELETE', '/__sim/requests');
    const run = await sync();
    expect(run).toMatchObject({ status: 'done', mode: 'delta', added: 0, removed: 0, reenrichMarked: 0, pages: 0 });
    const counts = await requests();
    expect(counts[`query:attributes:${LAYER}:${siruta}`]).toBe(1);
    expect(counts[`query:features:${LAYER}:${siruta}`]).toBeUndefined();
    expect(counts[`query:features:${LAYER}`]).toBeUndefined();
  });

  test('a delta sync adds, removes and marks for re-enrichment exactly what changed', async () => {
    const m = await rig.simJson<{ added: number[]; removed: number[]; changed: number[] }>('POST', '/__sim/mutate', { siruta, layerId: LAYER, add: 3, remove: 2, change: 4 });
    await rig.simJson('DELETE', '/__sim/requests');
    const run = await sync();
    expect(run).toMatchObject({ status: 'done', mode: 'delta', added: 3, removed: 2, reenrichMarked: 4 });
    await expectStoreEqualsTruth();
    const marked = await rig.db.query<{ object_id: string }>(
      `SELECT object_id FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND reenrich_marked ORDER BY object_id`,
      [siruta, LAYER],
    );
    expect(marked.rows.map((r) => Number(r.object_id))).toEqual([...m.changed].sort((a, b) => a - b));
    // Only the 3 new and 4 changed features were downloaded: one page.
    expect((await requests())[`query:features:${LAYER}:${siruta}`]).toBe(1);
  });

  test('a delta over 50% turns into a full sync', async () => {
    const truth = await truthLayer(rig, siruta, LAYER);
    await rig.simJson('POST', '/__sim/mutate', { siruta, layerId: LAYER, remove: Math.ceil(truth.size * 0.6) });
    const run = await sync();
    expect(run).toMatchObject({ status: 'done', mode: 'full' });
    expect(run.removed).toBe(Math.ceil(truth.size * 0.6));
    await expectStoreEqualsTruth();
  });

  test('forceFullSync downloads everything again', async () => {
    const run = await sync({ forceFullSync: true });
    expect(run).toMatchObject({ status: 'done', mode: 'full', added: 0, removed: 0 });
    expect(run.pages).toBeGreaterThan(0);
  });

  test('portal errors (errorRate 0.2) are retried and the run ends done', async () => {
    await rig.simJson('POST', '/__sim/mutate', { siruta, layerId: LAYER, add: 5, change: 3 });
    await rig.simJson('POST', '/__sim/faults', { errorRate: 0.2 });
    try {
      const run = await sync({ forceFullSync: true });
      expect(run.status).toBe('done');
      await expectStoreEqualsTruth();
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  });

  test('an expired portal session is renewed transparently', async () => {
    await rig.simJson('POST', '/__sim/faults', { sessionTtlSeconds: 1 });
    try {
      await rig.simJson('DELETE', '/__sim/requests');
      await sync();
      await new Promise((r) => setTimeout(r, 1500));
      await rig.simJson('POST', '/__sim/mutate', { siruta, layerId: LAYER, add: 1 });
      const run = await sync();
      expect(run).toMatchObject({ status: 'done', added: 1 });
      expect((await requests())['route:POST /eterra/api/authentication']).toBeGreaterThanOrEqual(1);
      await expectStoreEqualsTruth();
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  });

  test('buildings sync through the same engine', async () => {
    const run = await sync({ layerId: 'CLADIRI_ACTIVE' });
    expect(run).toMatchObject({ status: 'done', mode: 'full' });
    await expectStoreEqualsTruth('CLADIRI_ACTIVE');
  });
});
