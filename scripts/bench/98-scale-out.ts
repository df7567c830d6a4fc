/**
 * The read replica under a county load (issue 44 item 4; `npm run bench -- scale-out`). Prints
 * JSON lines {"bench":"scale-out"}.
 *
 * Two web apps in this process on the bench store, the same code, one reading the primary and one
 * reading a streaming replica (the stack's own when it runs with REPLICA=1, otherwise one this
 * bench makes with the stack's replica service, `pg_basebackup -R`). A colleague's probes (an
 * uncached z14 parcel tile of the bench UAT, an OGC page of 100 parcels in that tile, a geoportal
 * search) go to both in turn, first with the service idle, then while a county syncs on the
 * primary through the real `countySync` workflow on the bench stack's workers (BENCH_COUNTY,
 * default Covasna; the load phase lasts at most BENCH_LOAD_SECONDS, default 180, then the job is
 * cancelled). For each reader and phase: p50/p95 per probe; during the load, the replica's lag
 * as the primary reports it (pg_stat_replication replay_lag and bytes behind).
 * On one machine the replica shares the two cores with the primary: a figure, not a goal
 * (docs/operations.md "A read replica").
 */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../../api/app';
import { config } from '../../domain/config';
import { getPool } from '../../domain/db/pool';
import { createStore, type Store } from '../../domain/db/store';
import { clearTileCache } from '../../domain/tiles/service';
import { start } from '../../temporal/jobs';
import { replicaDataDir, replicaService } from '../stack/services';
import { waitFor, type Proc } from '../stack/proc';
import { createTestSessionRecord } from '../../test/helpers/session';
import { BENCH_SIRUTA, benchServices, ensureBenchUatSynced, jsonLine, note, percentiles, runBench, waitForIdleTileArchive } from './_shared';

const BENCH = 'scale-out';
const say = (m: string) => note(BENCH, m);
const COUNTY = process.env.BENCH_COUNTY ?? 'Covasna';
const LOAD_MS = Math.max(10, Number(process.env.BENCH_LOAD_SECONDS ?? 180)) * 1000;
const IDLE_ROUNDS = 30;
const ZOOM = 14;
const searches = ['cluj', 'floresti', 'apahida', 'turda', 'dej', 'gherla', 'baciu', 'aiud'];

type Reader = 'primary' | 'replica';
type Probe = 'tile' | 'ogc' | 'search';
type Samples = Record<Probe, number[]>;

interface App {
  base: string;
  server: http.Server;
  store: Store;
}

const dbUrl = (port: number) =>
  `postgresql://${encodeURIComponent(config.db.user)}:${encodeURIComponent(config.db.password)}@${config.db.host}:${port}/${config.db.database}`;

async function listen(store: Store): Promise<App> {
  const server = http.createServer(createApp({ store }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, store };
}

/** The stack's replica when it runs one; otherwise one made now with the same service (kept for later runs). */
async function ensureReplica(): Promise<Proc | undefined> {
  const svc = replicaService(replicaDataDir(), config.db.replicaPort);
  if (await svc.ready().catch(() => false)) {
    say(`using the running replica on port ${config.db.replicaPort}`);
    return undefined;
  }
  say(`starting a streaming replica on port ${config.db.replicaPort} (${path.relative(process.cwd(), replicaDataDir())})`);
  const proc = svc.start();
  await waitFor('replica', svc.ready, { timeoutMs: 30 * 60_000, proc });
  return proc;
}

/** z14 tiles over the bench UAT's parcels, each with the WGS84 bbox of the tile. */
async function loadTiles(): Promise<Array<{ x: number; y: number; bbox: string }>> {
  const r = await getPool().query<{ x: number; y: number }>(
    `WITH c AS (SELECT ST_Centroid(geom_3857) AS p FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND geom_3857 IS NOT NULL)
     SELECT DISTINCT floor((ST_X(p) + 20037508.342789244) / (40075016.68557849 / 2 ^ $2))::int AS x,
                     floor((20037508.342789244 - ST_Y(p)) / (40075016.68557849 / 2 ^ $2))::int AS y FROM c`,
    [BENCH_SIRUTA, ZOOM],
  );
  const n = 2 ** ZOOM;
  const lon = (x: number) => (x / n) * 360 - 180;
  const lat = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
  return r.rows.map((t) => ({ ...t, bbox: [lon(t.x), lat(t.y + 1), lon(t.x + 1), lat(t.y)].map((v) => v.toFixed(6)).join(',') }));
}

async function timed(url: string, cookie: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { cookie, 'accept-encoding': 'gzip' } });
  await res.arrayBuffer();
  if (res.status >= 400) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - t0;
}

let tiles: Array<{ x: number; y: number; bbox: string }> = [];
let round = 0;

/** One probe of each kind against one reader's app; the tile cache emptied first, so the tile is rendered. */
async function probeRound(app: App, cookie: string, into: Samples): Promise<void> {
  const t = tiles[round++ % tiles.length];
  clearTileCache();
  into.tile.push(await timed(`${app.base}/tiles/gis_terenuri/${ZOOM}/${t.x}/${t.y}`, cookie));
  into.ogc.push(await timed(`${app.base}/ogc/collections/parcels/items?bbox=${t.bbox}&limit=100`, cookie));
  into.search.push(await timed(`${app.base}/api/geoportal/search?q=${searches[round % searches.length]}`, cookie));
}

const empty = (): Samples => ({ tile: [], ogc: [], search: [] });

function emit(phase: string, reader: Reader, s: Samples): void {
  for (const probe of ['tile', 'ogc', 'search'] as const) {
    const p = percentiles(s[probe]);
    jsonLine(BENCH, `${phase}.${reader}.${probe}.p50`, p.p50, 'ms');
    jsonLine(BENCH, `${phase}.${reader}.${probe}.p95`, p.p95, 'ms');
  }
}

async function main(): Promise<void> {
  await ensureBenchUatSynced(say);
  await waitForIdleTileArchive(say);
  tiles = await loadTiles();
  if (tiles.length === 0) throw new Error('no z14 tile over the bench UAT');
  const replicaProc = await ensureReplica();
  const replicaDb = new pg.Pool({ connectionString: dbUrl(config.db.replicaPort), max: 1 });
  const apps: Record<Reader, App> = {
    primary: await listen(createStore(config.db.url, { readUrl: config.db.url })),
    replica: await listen(createStore(config.db.url, { readUrl: dbUrl(config.db.replicaPort) })),
  };
  const ana = await createTestSessionRecord({ email: 'bench-ana@birou.ro', company: 'B', enrichmentScope: 'full' });
  try {
    const recovering = (await replicaDb.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r;
    if (!recovering) throw new Error(`the server on port ${config.db.replicaPort} is not a standby`);

    say('idle: both readers in turn…');
    const idle: Record<Reader, Samples> = { primary: empty(), replica: empty() };
    for (let i = 0; i < IDLE_ROUNDS; i++) {
      await probeRound(apps.primary, ana.cookie, idle.primary);
      await probeRound(apps.replica, ana.cookie, idle.replica);
    }
    emit('idle', 'primary', idle.primary);
    emit('idle', 'replica', idle.replica);

    say(`loading the county ${COUNTY} on the primary for at most ${LOAD_MS / 1000} s…`);
    const { handle, jobId } = await start('sync-county', { county: COUNTY, trigger: 'county', requestTileRebuild: false }, { portalStarts: benchServices().landreg.portalStarts });
    let finished = false;
    const done = handle.result().then(
      () => (finished = true),
      () => (finished = true),
    );
    const load: Record<Reader, Samples> = { primary: empty(), replica: empty() };
    const lagMs: number[] = [];
    const lagBytes: number[] = [];
    const t0 = Date.now();
    // Give the load a few seconds to reach the store's writes before measuring.
    await new Promise((r) => setTimeout(r, 5000));
    while (!finished && Date.now() - t0 < LOAD_MS) {
      await probeRound(apps.primary, ana.cookie, load.primary);
      await probeRound(apps.replica, ana.cookie, load.replica);
      const lag = await getPool().query<{ ms: number | null; bytes: string | null }>(
        `SELECT max(extract(epoch FROM replay_lag) * 1000)::float8 AS ms, max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn))::text AS bytes FROM pg_stat_replication`,
      );
      lagMs.push(lag.rows[0].ms ?? 0);
      lagBytes.push(Number(lag.rows[0].bytes ?? 0));
    }
    const loadSeconds = (Date.now() - t0) / 1000;
    if (!finished) {
      say(`load window over: cancelling ${jobId}`);
      await handle.cancel().catch(() => undefined);
    }
    await done;
    emit('load', 'primary', load.primary);
    emit('load', 'replica', load.replica);
    const ms = percentiles(lagMs);
    const bytes = percentiles(lagBytes);
    jsonLine(BENCH, 'load.replica_lag.p50', ms.p50, 'ms');
    jsonLine(BENCH, 'load.replica_lag.p95', ms.p95, 'ms');
    jsonLine(BENCH, 'load.replica_lag.max', ms.max, 'ms');
    jsonLine(BENCH, 'load.replica_behind.p95', bytes.p95, 'bytes');
    jsonLine(BENCH, 'load.seconds', loadSeconds, 's');
    jsonLine(BENCH, 'load.county_finished', finished, COUNTY);
  } finally {
    await ana.end();
    for (const a of Object.values(apps)) {
      a.server.closeAllConnections();
      await new Promise<void>((r) => a.server.close(() => r()));
      await a.store.close();
    }
    await replicaDb.end();
    if (replicaProc) await replicaProc.stop();
  }
}

runBench(main);
