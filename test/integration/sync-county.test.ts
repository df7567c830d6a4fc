/**
 * `countySync` end to end (spec 4.4 sync-county, docs/sync.md "Jobs"): every UAT the catalogue
 * lists for the county is synced (parcels and buildings) two at a time through the real
 * workflows, workers and simulator, the store then equals the portal's truth for each of them,
 * each layer sync is recorded with trigger `county`, and the requester gets the in-app
 * notification of spec 6. The county job reads the whole UAT catalogue, so it runs against a
 * database of its own holding a catalogue of four Covasna UATs. `refreshAll` over them, a few UATs
 * a run, continues as new and answers for every UAT (a national store would pass Temporal's
 * history limit in one run).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrate } from '../../domain/db/migrate';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/common/queues';
import type { countySync, refreshAll } from '../../workflows/countySync';
import { pickUat, startSyncRig, storedLayer, truthLayer, type SyncRig } from '../helpers/landregStack';
import { scratchDatabase } from '../helpers/scratchDb';

const COVASNA = 145;
const LAYERS = ['TERENURI_ACTIVE', 'CLADIRI_ACTIVE'];
const USER = 'county-sync-test@example.ro';
const scratch = scratchDatabase('geoportal_county_sync_test');

let rig: SyncRig;
let uats: Array<{ siruta: number; name: string; parcels: number }>;

beforeAll(async () => {
  await scratch.create();
  await migrate(scratch.url);
  rig = await startSyncRig({ dbUrl: scratch.url });
  // The four smallest UATs of Covasna make the county as the catalogue knows it.
  uats = await Promise.all([0, 1, 2, 3].map((rank) => pickUat(rig, COVASNA, rank)));
  for (const u of uats) {
    await rig.db.query(`INSERT INTO gis_uats (siruta, name, county, workspace_pk) VALUES ($1, $2, 'Covasna', $3)`, [u.siruta, u.name, COVASNA]);
  }
}, 120_000);

afterAll(async () => {
  await rig?.stop();
  await scratch.drop();
});

describe('sync-county', () => {
  it('syncs every UAT of the county to the portal truth and notifies the requester', async () => {
    const result = await rig.env.client.workflow.execute<typeof countySync>('countySync', {
      taskQueue: TaskQueue.store,
      workflowId: jobWorkflowId('sync-county', `covasna-${rig.suffix}`),
      // The county name as a user types it: matched without case or diacritics.
      args: [{ county: 'covasna', userId: USER, requestTileRebuild: false }],
    });

    expect(result).toMatchObject({ county: 'Covasna', done: uats.length, failed: 0, removed: 0, tileRebuildRequested: false });
    expect(result.uats.map((u) => u.siruta).sort()).toEqual(uats.map((u) => u.siruta).sort());

    let expectedAdded = 0;
    const addedByLayer: Record<string, number> = Object.fromEntries(LAYERS.map((l) => [l, 0]));
    for (const u of uats) {
      for (const layer of LAYERS) {
        const truth = await truthLayer(rig, u.siruta, layer);
        expect({ siruta: u.siruta, layer, stored: await storedLayer(rig.db, u.siruta, layer) }).toEqual({ siruta: u.siruta, layer, stored: truth });
        expectedAdded += truth.size;
        addedByLayer[layer] += truth.size;
      }
      expect(result.uats.find((x) => x.siruta === u.siruta)).toMatchObject({ name: u.name, status: 'done' });
    }
    expect(result.added).toBe(expectedAdded);
    // What the county's sync changed, by layer (a first load: everything added, nothing changed).
    expect(result.layers).toEqual(LAYERS.map((layerId) => ({ layerId, added: addedByLayer[layerId], removed: 0, changed: 0 })));
    const summary = `parcele: ${addedByLayer.TERENURI_ACTIVE} adăugate; clădiri: ${addedByLayer.CLADIRI_ACTIVE} adăugate`;
    expect(result.summary).toBe(summary);

    const runs = await rig.db.query<{ siruta: number; layer_id: string; trigger: string; status: string; mode: string }>(
      `SELECT siruta, layer_id, trigger, status, mode FROM gis_sync_runs ORDER BY siruta, layer_id`,
    );
    expect(runs.rows).toHaveLength(uats.length * LAYERS.length);
    expect(new Set(runs.rows.map((r) => `${r.trigger}/${r.status}/${r.mode}`))).toEqual(new Set(['county/done/full']));

    const notes = await rig.db.query<{ type: string; title: string; body: string; link: string }>(
      `SELECT type, title, body, link FROM notifications WHERE user_id = $1`,
      [USER],
    );
    expect(notes.rows).toEqual([
      {
        type: 'county-sync-done',
        title: 'Sincronizarea județului Covasna s-a încheiat',
        body: `${uats.length} UAT-uri sincronizate, 0 cu erori. ${summary}.`,
        link: '/parcel-sync',
      },
    ]);
  }, 180_000);
  it('a UAT the portal fails on is reported, the others go on, and the notification counts it', async () => {
    const failing = uats[0];
    await rig.simJson('POST', '/__sim/faults', { failSirutas: [failing.siruta] });
    try {
      const result = await rig.env.client.workflow.execute<typeof countySync>('countySync', {
        taskQueue: TaskQueue.store,
        workflowId: jobWorkflowId('sync-county', `covasna-fail-${rig.suffix}`),
        args: [{ county: 'Covasna', userId: `${USER}.fail`, requestTileRebuild: false }],
      });
      expect(result).toMatchObject({ done: uats.length - 1, failed: 1 });
      const bad = result.uats.find((u) => u.siruta === failing.siruta);
      expect(bad).toMatchObject({ status: 'failed', name: failing.name });
      expect(bad?.error).toBe('Portalul de cadastru a trimis un răspuns neașteptat.');
      for (const u of uats.slice(1)) expect(result.uats.find((x) => x.siruta === u.siruta)).toMatchObject({ status: 'done' });
      // The failed UAT's layer sync is recorded as failed; the store keeps what it had.
      const runs = await rig.db.query<{ status: string }>(
        `SELECT status FROM gis_sync_runs WHERE siruta = $1 AND trigger = 'county' ORDER BY started_at DESC LIMIT 1`,
        [failing.siruta],
      );
      expect(runs.rows).toEqual([{ status: 'failed' }]);
      expect(await storedLayer(rig.db, failing.siruta, 'TERENURI_ACTIVE')).toEqual(await truthLayer(rig, failing.siruta, 'TERENURI_ACTIVE'));
      const note = await rig.db.query<{ body: string }>(`SELECT body FROM notifications WHERE user_id = $1`, [`${USER}.fail`]);
      expect(note.rows[0].body).toBe(`${uats.length - 1} UAT-uri sincronizate, 1 cu erori. parcele: nicio schimbare; clădiri: nicio schimbare.`);
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  }, 180_000);

  it('a refresh finds the unchanged UATs for the whole county: no download and no child sync for them, while a UAT changed on the portal is synced to its truth', async () => {
    const countyRuns = async (tag: string) => {
      await rig.simJson('DELETE', '/__sim/requests');
      const workflowId = jobWorkflowId('sync-county', `covasna-${tag}-${rig.suffix}`);
      const result = await rig.env.client.workflow.execute<typeof countySync>('countySync', {
        taskQueue: TaskQueue.store,
        workflowId,
        args: [{ county: 'Covasna', requestTileRebuild: false }],
      });
      const history = await rig.env.client.workflow.getHandle(workflowId).fetchHistory();
      const children = (history.events ?? []).flatMap((e) => e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? []);
      const { counts } = await rig.simJson<{ counts: Record<string, number> }>('GET', '/__sim/requests');
      return { workflowId, result, children, counts };
    };
    // What the portal was asked about one UAT alone (a per-UAT count, id list or download).
    const perUatQueries = (counts: Record<string, number>, siruta: number) => Object.keys(counts).filter((k) => k.endsWith(`:${siruta}`));
    const downloads = (counts: Record<string, number>) => Object.entries(counts).filter(([k]) => /^query:features:[^:]+$/.test(k)).reduce((n, [, v]) => n + v, 0);

    // Nothing changed since the first test: every UAT is settled by the county's own queries.
    const quiet = await countyRuns('quiet');
    expect(quiet.result).toMatchObject({ done: uats.length, failed: 0, skipped: 0, added: 0, removed: 0, changed: 0 });
    expect(quiet.result.summary).toBe('parcele: nicio schimbare; clădiri: nicio schimbare');
    expect(quiet.children).toEqual([]);
    expect(downloads(quiet.counts)).toBe(0);
    for (const u of uats) expect({ siruta: u.siruta, asked: perUatQueries(quiet.counts, u.siruta) }).toEqual({ siruta: u.siruta, asked: [] });
    // The sync history still shows each UAT and layer refreshed, by the county job.
    const quietRuns = await rig.db.query<{ siruta: number; layer_id: string; status: string; mode: string; trigger: string; added: number; removed: number; pages: number }>(
      `SELECT siruta, layer_id, status, mode, trigger, added, removed, pages FROM gis_sync_runs WHERE workflow_id = $1 ORDER BY siruta, layer_id`,
      [quiet.workflowId],
    );
    expect(quietRuns.rows).toEqual(
      [...uats]
        .sort((a, b) => a.siruta - b.siruta)
        .flatMap((u) => [...LAYERS].sort().map((layer_id) => ({ siruta: u.siruta, layer_id, status: 'done', mode: 'delta', trigger: 'county', added: 0, removed: 0, pages: 0 }))),
    );

    // One UAT changes on the portal: it alone gets its sync, and the store follows the portal.
    const changedUat = uats[2];
    const mutated = await rig.simJson<{ added: number[]; removed: number[] }>('POST', '/__sim/mutate', { siruta: changedUat.siruta, layerId: 'TERENURI_ACTIVE', add: 3, remove: 2, change: 2 });
    const busy = await countyRuns('one-changed');
    expect(busy.result).toMatchObject({ done: uats.length, failed: 0, added: mutated.added.length, removed: mutated.removed.length });
    expect(busy.result.uats.find((u) => u.siruta === changedUat.siruta)).toMatchObject({ status: 'done', added: 3, removed: 2 });
    // One child sync, under the changed UAT's lock (its workflow id, temporal/common/jobTable.ts).
    expect(busy.children).toEqual([`uat:${changedUat.siruta}`]);
    expect(downloads(busy.counts)).toBeGreaterThan(0);
    expect(busy.counts[`query:features:TERENURI_ACTIVE:${changedUat.siruta}`]).toBe(downloads(busy.counts));
    for (const u of uats.filter((x) => x.siruta !== changedUat.siruta)) {
      expect({ siruta: u.siruta, asked: perUatQueries(busy.counts, u.siruta) }).toEqual({ siruta: u.siruta, asked: [] });
    }
    for (const u of uats) {
      for (const layer of LAYERS) {
        expect({ siruta: u.siruta, layer, stored: await storedLayer(rig.db, u.siruta, layer) }).toEqual({ siruta: u.siruta, layer, stored: await truthLayer(rig, u.siruta, layer) });
      }
    }

    // And the next refresh is a quiet one again.
    const again = await countyRuns('again');
    expect(again.result).toMatchObject({ done: uats.length, added: 0, removed: 0, changed: 0 });
    expect(again.children).toEqual([]);
    expect(downloads(again.counts)).toBe(0);
  }, 180_000);

  it('refresh-all over more UATs than one run takes continues as new and still answers every UAT, each synced once', async () => {
    const workflowId = jobWorkflowId('refresh-all', `per-run-${rig.suffix}`);
    const mutated = await rig.simJson<{ added: number[]; removed: number[] }>('POST', '/__sim/mutate', { siruta: uats[3].siruta, layerId: 'TERENURI_ACTIVE', add: 2, remove: 1, change: 0 });
    const first = await rig.env.client.workflow.start<typeof refreshAll>('refreshAll', {
      taskQueue: TaskQueue.store,
      workflowId,
      // Three UATs a run: the store's four take two runs (a national store, 3,200 UATs at 200 a run, sixteen).
      args: [{ requestTileRebuild: false, uatsPerRun: 3 }],
    });
    const result = await first.result();
    // The first run's history ends in its continuation, after three children.
    const history = (await rig.env.client.workflow.getHandle(workflowId, first.firstExecutionRunId).fetchHistory()).events ?? [];
    expect(history.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    expect(history.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(3);
    expect(result).toMatchObject({ done: uats.length, failed: 0, skipped: 0, added: mutated.added.length, removed: mutated.removed.length });
    expect(result.uats.map((u) => u.siruta).sort()).toEqual(uats.map((u) => u.siruta).sort());
    for (const u of uats) {
      expect({ siruta: u.siruta, stored: await storedLayer(rig.db, u.siruta, 'TERENURI_ACTIVE') }).toEqual({ siruta: u.siruta, stored: await truthLayer(rig, u.siruta, 'TERENURI_ACTIVE') });
    }
    // One manual run a UAT and layer: none repeated across the two runs.
    const runs = await rig.db.query<{ siruta: number; n: number }>(
      `SELECT siruta, count(*)::int AS n FROM gis_sync_runs WHERE trigger = 'manual' AND layer_id = 'TERENURI_ACTIVE' GROUP BY siruta ORDER BY siruta`,
    );
    expect(runs.rows).toEqual(uats.map((u) => ({ siruta: u.siruta, n: 1 })).sort((a, b) => a.siruta - b.siruta));
  }, 180_000);

  it('a county job cut off by its run timeout cancels its UATs\' syncs: their runs are recorded failed, none left running', async () => {
    const held = uats[1];
    const started = new Date();
    // The held UAT's layer queries wait unanswered: its sync is still running when the county job's time is up.
    await rig.simJson('POST', '/__sim/faults', { holdSirutas: [held.siruta] });
    try {
      await expect(
        rig.env.client.workflow.execute<typeof countySync>('countySync', {
          taskQueue: TaskQueue.store,
          workflowId: jobWorkflowId('sync-county', `covasna-timeout-${rig.suffix}`),
          // Each UAT through a sync of its own (the county's shortcut would settle the unchanged ones).
          args: [{ county: 'Covasna', requestTileRebuild: false, perUatPlan: true }],
          workflowRunTimeout: '6 seconds',
        }),
      ).rejects.toThrow();
      const runs = async () =>
        (await rig.db.query<{ siruta: number; status: string }>(`SELECT siruta, status FROM gis_sync_runs WHERE started_at >= $1 ORDER BY siruta`, [started])).rows;
      for (let i = 0; i < 100 && (await runs()).some((r) => r.status === 'running'); i++) await new Promise((r) => setTimeout(r, 200));
      const after = await runs();
      // Before, the terminated syncs' runs stayed "running" for good.
      expect(after.filter((r) => r.status === 'running')).toEqual([]);
      expect(after.filter((r) => r.siruta === held.siruta).map((r) => r.status)).toContain('failed');
    } finally {
      await rig.simJson('DELETE', '/__sim/faults');
    }
  }, 120_000);
});
