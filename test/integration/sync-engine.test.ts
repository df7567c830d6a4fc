/**
 * The layer sync engine end to end: the land-registry simulator, real PostGIS, real Temporal
 * workers (own task queues). Each scenario checks the store against /__sim/truth and the
 * portal traffic against /__sim/requests.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { WorkflowHandle } from '@temporalio/client';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/common/queues';
import type { layerSync } from '../../workflows/layerSync';
import { forgetUat, pickUat, startSyncRig, storedLayer, truthLayer, type SyncRig } from '../helpers/landregStack';

const LAYER = 'TERENURI_ACTIVE';
let rig: SyncRig;
let siruta: number;

let lastSync: WorkflowHandle<typeof layerSync> | undefined;

async function sync(opts: { forceFullSync?: boolean; layerId?: string } = {}) {
  lastSync = await rig.env.client.workflow.start<typeof layerSync>('layerSync', {
    taskQueue: TaskQueue.store,
    workflowId: jobWorkflowId('layer-sync', `${siruta}-test`),
    args: [{ siruta, layerId: opts.layerId ?? LAYER, forceFullSync: opts.forceFullSync, trigger: 'manual' }],
  });
  return lastSync.result();
}

/** The activities the last sync's workflow scheduled, in order. */
async function activitiesOfLastSync(): Promise<string[]> {
  const events = (await lastSync!.fetchHistory()).events ?? [];
  return events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : []));
}

async function expectStoreEqualsTruth(layerId = LAYER) {
  const [stored, truth] = await Promise.all([storedLayer(rig.db, siruta, layerId), truthLayer(rig, siruta, layerId)]);
  expect(stored.size).toBe(truth.size);
  expect([...stored.entries()].sort((a, b) => a[0] - b[0])).toEqual([...truth.entries()].sort((a, b) => a[0] - b[0]));
}

type HistoryRow = { object_id: string | null; feature_id: string; field: string; before: string | null; after: string | null; notified: boolean };

/** The history rows a run wrote, with the object id of features still stored. */
async function history(runId: string): Promise<HistoryRow[]> {
  const r = await rig.db.query<HistoryRow>(
    `SELECT f.object_id, c.feature_id, c.field, c.before, c.after, c.notified
       FROM feature_changes c LEFT JOIN gis_features f ON f.id = c.feature_id
      WHERE c.sync_run_id = $1 ORDER BY f.object_id, c.field`,
    [runId],
  );
  return r.rows;
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
    // A first load is no change: no history row, nothing counted as changed.
    expect(run.changed).toBe(0);
    expect((await history(run.id)).length).toBe(0);
  });

  test('an unchanged UAT makes no feature download', async () => {
    await rig.simJson('DELETE', '/__sim/requests');
    const run = await sync();
    expect(run).toMatchObject({ status: 'done', mode: 'delta', added: 0, removed: 0, reenrichMarked: 0, pages: 0 });
    const counts = await requests();
    expect(counts[`query:features:${LAYER}:${siruta}`]).toBeUndefined();
    expect(counts[`query:count:${LAYER}:${siruta}`]).toBe(1);
    await expectStoreEqualsTruth();
    // No enriched parcel: no probe activity either (it would only take a slot of the landreg queue's rate).
    expect(await activitiesOfLastSync()).toEqual(['openLayerSyncRun', 'planLayerSync', 'closeLayerSync']);
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
    expect(await activitiesOfLastSync()).toEqual(['openLayerSyncRun', 'planLayerSync', 'probeEnrichedParcels', 'closeLayerSync']);
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

  test('every parcel keeps its history, followed or not: new, removed and re-measured parcels, with the run that saw them', async () => {
    const m = await rig.simJson<{ added: number[]; removed: number[]; changed: number[]; reshaped: number[] }>('POST', '/__sim/mutate', {
      siruta, layerId: LAYER, add: 1, remove: 1, change: 1, reshape: 2,
    });
    const before = await rig.db.query<{ id: string; object_id: string; area_value: number }>(
      `SELECT id, object_id, area_value FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND object_id = ANY($3::bigint[])`,
      [siruta, LAYER, [...m.removed, ...m.reshaped]],
    );
    const byObject = new Map(before.rows.map((r) => [Number(r.object_id), r]));
    const run = await sync();
    // The run says what it changed: 1 added, 1 removed, 2 re-measured (the VALID_FROM change is a re-enrichment mark, not a field change).
    expect(run).toMatchObject({ status: 'done', mode: 'delta', added: 1, removed: 1, changed: 2, reenrichMarked: 1 });
    await expectStoreEqualsTruth();
    const after = await rig.db.query<{ object_id: string; area_value: number }>(
      `SELECT object_id, area_value FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND object_id = ANY($3::bigint[])`,
      [siruta, LAYER, m.reshaped],
    );
    const area = (v: number) => `${Math.round(v * 100) / 100} m²`;
    const expected: Array<Omit<HistoryRow, 'notified'>> = [
      ...m.reshaped.sort((a, b) => a - b).flatMap((o) => {
        const was = byObject.get(o)!;
        const now = after.rows.find((r) => Number(r.object_id) === o)!;
        return [
          { object_id: String(o), feature_id: was.id, field: 'GEOMETRIE', before: null, after: null },
          { object_id: String(o), feature_id: was.id, field: 'SUPRAFATA', before: area(was.area_value), after: area(now.area_value) },
        ];
      }),
    ];
    const rows = await history(run.id);
    const added = await rig.db.query<{ id: string }>(`SELECT id FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND object_id = $3`, [siruta, LAYER, m.added[0]]);
    expect(rows.map(({ notified: _n, ...r }) => r)).toEqual(
      [
        ...expected,
        { object_id: String(m.added[0]), feature_id: added.rows[0].id, field: 'ADAUGATA', before: null, after: null },
        { object_id: null, feature_id: byObject.get(m.removed[0])!.id, field: 'ELIMINATA', before: 'activă', after: 'eliminată' },
      ].sort((a, b) => (a.object_id === null ? 1 : b.object_id === null ? -1 : Number(a.object_id) - Number(b.object_id)) || a.field.localeCompare(b.field)),
    );
    // Nobody follows anything in this UAT: the rows wait for no notification.
    expect(rows.every((r) => r.notified)).toBe(true);
    // A sync that finds nothing new writes no history.
    const again = await sync();
    expect(again).toMatchObject({ added: 0, removed: 0, changed: 0 });
    expect(await history(again.id)).toEqual([]);
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
