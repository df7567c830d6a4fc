/**
 * The readers on a real streaming replica (issue 44; docs/operations.md "A read replica"): a hot
 * standby of the test store made by the stack's own replica service (`pg_basebackup -R`), the
 * app's tiles, OGC pages, search and feature panel pointed at it, a UAT synced on the primary by
 * the real sync workflow. While the standby's replay is paused the readers do not see the UAT
 * (so they read the standby, and the tile cache keeps nothing newer than the standby's version);
 * once replayed they do; with the standby stopped they read the primary, never a 500. The tile
 * gateway in front of the app (test/helpers/tilegate.ts, `TILEGATE_DATABASE_READ_URL` = the
 * standby) reads its tiles the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { config } from '../../domain/config';
import { createApp } from '../../api/app';
import { closePool } from '../../domain/db/pool';
import { createReplica } from '../../domain/db/readers';
import type { Store } from '../../domain/db/store';
import { replicaService } from '../../scripts/stack/services';
import { waitFor, type Proc } from '../../scripts/stack/proc';
import { jobWorkflowId } from '../../temporal/ids';
import { TaskQueue } from '../../temporal/common/queues';
import type { layerSync } from '../../workflows/layerSync';
import { listenApp } from '../helpers/appServer';
import { freeLoopbackPort } from '../../domain/net/loopback';
import { createTestSession } from '../helpers/session';
import { tileOf } from '../helpers/tilesFixtures';
import { forgetUat, pickUat, startSyncRig, type SyncRig } from '../helpers/landregStack';
import { answeredByGate, startGate, stopGate, type Gate } from '../helpers/tilegate';

const PARCELS = 'TERENURI_ACTIVE';
let rig: SyncRig;
let standby: Proc;
let standbyDb: pg.Pool;
let store: Store;
let app: { server: import('node:http').Server; base: string };
let cookie: string;
let tmp: string;
let siruta: number;
let gate: Gate;

const get = (p: string) => fetch(`${app.base}${p}`, { headers: { cookie } });

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** What a user of the map sees of one parcel: its OGC items count, its search hit, its tile. */
async function readersSee(parcel: { ref: string; objectId: number; lon: number; lat: number }) {
  const items = await get(`/ogc/collections/parcels/items?siruta=${siruta}&limit=10000`);
  expect(items.status).toBe(200);
  const ogcCount = ((await items.json()) as { features: unknown[] }).features.length;

  const search = await get(`/api/geoportal/search?q=${encodeURIComponent(parcel.ref)}&siruta=${siruta}`);
  expect(search.status).toBe(200);
  const hits = ((await search.json()) as { results: Array<{ kind: string; siruta: number; objectId?: number }> }).results;
  const searchFinds = hits.some((h) => h.kind === 'parcel' && h.siruta === siruta && h.objectId === parcel.objectId);

  const { x, y } = tileOf(parcel.lon, parcel.lat, 16);
  const tile = await get(`/tiles/gis_terenuri/16/${x}/${y}`);
  expect([200, 204]).toContain(tile.status);
  let tileHas = false;
  if (tile.status === 200) {
    const layer = new VectorTile(new PbfReader(new Uint8Array(await tile.arrayBuffer()))).layers.gis_terenuri;
    for (let i = 0; layer && i < layer.length; i++) {
      const p = layer.feature(i).properties;
      if (p.siruta === siruta && p.object_id === parcel.objectId) tileHas = true;
    }
  }
  return { ogcCount, searchFinds, tileHas };
}

/** Whether the parcel is in its z16 tile as the gateway itself renders it (not the web process). */
async function gateTileHas(p: { objectId: number; lon: number; lat: number }): Promise<boolean> {
  const { x, y } = tileOf(p.lon, p.lat, 16);
  const ask = () => fetch(`${gate.url}/tiles/gis_terenuri/16/${x}/${y}`, { headers: { cookie } });
  // The first tile of a cookie is the web process's; from then on the gateway's.
  if ((await ask()).status >= 400) throw new Error('the web process refused the tile');
  const before = await answeredByGate(gate);
  const tile = await ask();
  expect([200, 204]).toContain(tile.status);
  expect(await answeredByGate(gate)).toBe(before + 1);
  if (tile.status === 204) return false;
  const layer = new VectorTile(new PbfReader(new Uint8Array(await tile.arrayBuffer()))).layers.gis_terenuri;
  for (let i = 0; layer && i < layer.length; i++) {
    const props = layer.feature(i).properties;
    if (props.siruta === siruta && props.object_id === p.objectId) return true;
  }
  return false;
}

/** Waits until the standby has replayed everything the primary wrote so far. */
async function standbyCaughtUp(): Promise<void> {
  const lsn = (await rig.db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
  await until('the standby to catch up', async () => {
    const r = await standbyDb.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]);
    return r.rows[0].ok ? true : undefined;
  });
}

let parcel: { ref: string; objectId: number; lon: number; lat: number };
let primaryCount: number;

beforeAll(async () => {
  rig = await startSyncRig();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cgp-replica-'));
  // The standby runs as the postgres user, which must reach its directory.
  fs.chmodSync(tmp, 0o755);
  const port = await freeLoopbackPort();
  const svc = replicaService(path.join(tmp, 'pg'), port);
  standby = svc.start();
  await waitFor('replica', svc.ready, { timeoutMs: 180_000, proc: standby });
  const readUrl = `postgresql://${encodeURIComponent(config.db.user)}:${encodeURIComponent(config.db.password)}@${config.db.host}:${port}/${config.db.database}`;
  standbyDb = new pg.Pool({ connectionString: readUrl, max: 2 });
  store = { ...rig.store, replica: createReplica(readUrl) };
  app = await listenApp(createApp({ store, outside: { landregBaseUrl: rig.sim.url } }));
  cookie = await createTestSession({ email: 'dan@birou.ro', company: 'U' });
  gate = await startGate(app.base, { env: { TILEGATE_DATABASE_READ_URL: readUrl } });
  // Brăila (workspace 92), the seventh-smallest UAT: this file's own data.
  siruta = (await pickUat(rig, 92, 6)).siruta;
  await forgetUat(rig.db, siruta);
  await standbyCaughtUp();
}, 300_000);

afterAll(async () => {
  stopGate(gate);
  await new Promise<void>((r) => {
    app?.server.closeAllConnections();
    app?.server.close(() => r());
  });
  await store?.replica?.pool.end();
  await store?.replica?.tilePool.end();
  await standbyDb?.end();
  await standby?.stop();
  await rig?.stop();
  await closePool();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('readers on a streaming replica', () => {
  test('the standby is a hot standby of the test store', async () => {
    const r = await standbyDb.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
    expect(r.rows[0].standby).toBe(true);
  });

  test('a UAT synced on the primary reaches the map, OGC and search once the standby replays it, and not before', async () => {
    await standbyDb.query('SELECT pg_wal_replay_pause()');
    const handle = await rig.env.client.workflow.start<typeof layerSync>('layerSync', {
      taskQueue: TaskQueue.store,
      workflowId: jobWorkflowId('layer-sync', `${siruta}-replica-${rig.suffix}`),
      args: [{ siruta, layerId: PARCELS, trigger: 'manual' }],
    });
    await handle.result();
    const rows = await rig.db.query<{ ref: string; object_id: string; lon: number; lat: number }>(
      `SELECT cadastral_ref AS ref, object_id,
              ST_X(ST_Transform(ST_PointOnSurface(geom), 4326)) AS lon, ST_Y(ST_Transform(ST_PointOnSurface(geom), 4326)) AS lat
         FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND geom IS NOT NULL AND cadastral_ref IS NOT NULL
        ORDER BY object_id LIMIT 1`,
      [siruta, PARCELS],
    );
    expect(rows.rows.length).toBe(1);
    const first = rows.rows[0];
    parcel = { ref: first.ref, objectId: Number(first.object_id), lon: first.lon, lat: first.lat };
    primaryCount = (
      await rig.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = $2`, [siruta, PARCELS])
    ).rows[0].n;
    expect(primaryCount).toBeGreaterThan(0);

    // Replay paused: the readers read the standby, which has not seen the sync.
    expect(await readersSee(parcel)).toEqual({ ogcCount: 0, searchFinds: false, tileHas: false });
    expect(await gateTileHas(parcel)).toBe(false);

    await standbyDb.query('SELECT pg_wal_replay_resume()');
    // Replayed: the same readers show it (the tile once the standby's tile version moved on).
    const seen = await until('the standby to replay the sync', async () => {
      const s = await readersSee(parcel);
      return s.ogcCount === primaryCount && s.searchFinds && s.tileHas ? s : undefined;
    });
    expect(seen).toEqual({ ogcCount: primaryCount, searchFinds: true, tileHas: true });
    await until('the gateway to read the replayed standby', async () => ((await gateTileHas(parcel)) ? true : undefined));
  }, 180_000);

  test('with the standby stopped the readers answer from the primary, without a 500', async () => {
    await standby.stop();
    expect(await readersSee(parcel)).toEqual({ ogcCount: primaryCount, searchFinds: true, tileHas: true });
    // And again while it is taken as away (no retry against it in between).
    expect(await readersSee(parcel)).toEqual({ ogcCount: primaryCount, searchFinds: true, tileHas: true });
    // The gateway too: from the primary, rendered by itself (a new version, so not from its cache).
    const { bumpTileVersion } = await import('../../domain/tiles/versions');
    await bumpTileVersion(rig.db, ['gis_terenuri']);
    await new Promise((r) => setTimeout(r, config.tiles.versionTtlMs + 200));
    expect(await gateTileHas(parcel)).toBe(true);
    expect(await gateTileHas(parcel)).toBe(true);
  }, 60_000);
});
