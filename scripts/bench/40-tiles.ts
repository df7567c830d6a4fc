/**
 * Geoportal bench (issue 7 item 6; run by `npm run bench -- tiles`, or alone with
 * STACK_PROFILE=bench against a running bench stack: `npx tsx scripts/bench/40-tiles.ts`).
 * Prints JSON lines {"bench":"tiles-vs-martin"|"tiles"|"geoportal-search"|"geoportal-export", metric, value, unit}.
 * TILES_BENCH=martin,zooms,search,export (default: all) runs only those parts.
 * Everything goes through HTTP against the bench app (config.app.publicUrl) with a real session.
 *
 * - Tiles, source `gis_terenuri_status` (the map's parcel layer) at z12–z16, plus
 *   `gis_cladiri_status` (buildings) at z14 and z16: distinct tiles that hold parcels of the bench UAT
 *   (tiles under a sample of parcel centroids).
 *   - uncached: before each round the source's data version is bumped (bumpTileVersion; the app
 *     re-reads versions within TILE_VERSION_TTL_MS) so every tile misses the cache; every answer's
 *     `X-Tile-Cache` header is checked;
 *   - cached: the same tiles asked again (the LRU answers);
 *   - latency p50/p95/p99 of sequential requests; throughput with CONCURRENCY requests in flight;
 *   - cached latency once more through node:http (keep-alive, gunzipSync), beside fetch: once a
 *     cached answer costs the server ~0.3 ms, most of what fetch measures is fetch itself (its
 *     WHATWG-stream gunzip takes several event-loop turns, which a busy 2-CPU machine stretches);
 *     a browser decodes in its network stack. Both are reported; the goal line is node:http's.
 *   Goals (issue 7): uncached z16 p95 < 50 ms, cached < 5 ms.
 * - Side by side with Martin 1.14 (issues 31, 45; scripts/bench/_martin.ts builds and starts it,
 *   cache off) on two stores: the dense bench UAT and a sparse one, a UAT of a few thousand
 *   parcels as the demo's (SPARSE_SIRUTA, synced once at the simulator's demo scale). The same
 *   z16 parcel tiles, each once per server and pass, CONCURRENCY in flight, our cache cold, a
 *   warm-up pass per server, passes in alternating order, medians printed with the load average;
 *   and the floor, the same tiles' statement timed inside PostgreSQL; then the sparse UAT's
 *   z16–z18 tiles as a sustained load (no idle time between tiles). Lines
 *   `"bench":"tiles-vs-martin"`, metrics prefixed `dense_`, `sparse_` and `sparse_sustained_`;
 *   each set prints both servers' mean body, decoded and as sent.
 * The store is the bench stack's (`.data/bench`, or DATA_DIR: an existing bench store is migrated
 * forward at start and reused, its bench UAT is not synced again).
 * - Search `GET /api/geoportal/search?q=`: UAT names, cadastral references of the bench UAT,
 *   the same references as they are typed (their first one, two and three digits: a keystroke's
 *   query, matched by a ninth of the store down to a thousandth), owner names (of enriched
 *   parcels; only those exist in the store).
 * - Export of 5,000 parcels through `POST /api/geoportal/export` (gpkg), beside one plain
 *   ogr2ogr of the same rows from PostGIS to GPKG, in the same run (each EXPORT_RUNS times).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { config } from '../../domain/config';
import { TILE_SESSION_OPTIONS, createPool, getPool } from '../../domain/db/pool';
import { ogr2ogr, pgDatasource } from '../../domain/exports/service';
import { parseOwners } from '../../domain/enrichment/rules';
import { EPSG_3844 } from '../../domain/geo/epsg3844';
import { bumpTileVersion, statementFor, tileSource } from '../../domain/tiles/service';
import { createTestSessionRecord } from '../../test/helpers/session';
import { MARTIN_VERSION, martinBinary, startMartin } from './_martin';
import { cpuNs, withChildren } from './_cpu';
import { listenerOf } from '../../test/helpers/stackProcs';
import { BENCH_SIRUTA, SPARSE_SIRUTA, ensureBenchUatSynced, ensureSparseUatSynced, jsonLine, note, percentiles, waitForIdleTileArchive, runBench } from './_shared';
import { pairedDifference, verdictOf } from './_stats';

const say = (msg: string) => note('tiles', msg);
/**
 * What the zoom part measures, by the name its lines carry: the map's parcel source at z12–z16,
 * its building source at z14, where the map starts drawing them (the fullest of their low zooms),
 * and z16. Martin is compared on the parcels.
 */
const MEASURED = {
  parcels: { source: 'gis_terenuri_status', zooms: [12, 13, 14, 15, 16] },
  buildings: { source: 'gis_cladiri_status', zooms: [14, 16] },
} as const;
const PARCEL_SOURCE = MEASURED.parcels.source;
/** Distinct tiles a zoom level at most, and uncached samples a zoom level at least (rounds repeat the set). */
const MAX_TILES = 150;
const MIN_UNCACHED_SAMPLES = 100;
const MAX_ROUNDS = 12;
/**
 * Cached samples a zoom level at least (rounds repeat the set, at least 3): z12 has 9 distinct
 * tiles, and a p95 of 27 samples is its second-largest sample.
 */
const MIN_CACHED_SAMPLES = 450;
const MIN_CACHED_ROUNDS = 3;
const CONCURRENCY = 4;
const SEARCH_SAMPLES = 40;
const EXPORT_PARCELS = 5000;
const EXPORT_RUNS = 3;
const GOAL_UNCACHED_Z16_P95_MS = 50;
/** Issue 31: every low zoom the map asks live (z12–z14, parcels and buildings) uncached under this. */
const GOAL_UNCACHED_LOW_ZOOM_P95_MS = 100;
const LOW_ZOOMS = [12, 13, 14];
const GOAL_CACHED_P95_MS = 5;

let cookie = '';
const base = config.app.publicUrl;
/** TILES_BENCH=martin,zooms,search,export (default all): the parts to run, to iterate on one. */
const parts = (process.env.TILES_BENCH ?? '').split(',').filter(Boolean);
const part = (name: string) => parts.length === 0 || parts.includes(name);

interface Tile {
  z: number;
  x: number;
  y: number;
}

/** Distinct tiles of zoom z under parcel centroids of a UAT (the bench UAT), in a stable pseudo-random order. */
async function tilesWithParcels(z: number, limit: number, siruta = BENCH_SIRUTA): Promise<Tile[]> {
  const r = await getPool().query<{ x: number; y: number }>(
    `WITH c AS (
       SELECT ST_X(p) AS px, ST_Y(p) AS py FROM (
         SELECT ST_Centroid(geom_3857) AS p FROM gis_features
          WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND geom_3857 IS NOT NULL) s
     ), t AS (
       SELECT DISTINCT floor((px + 20037508.342789244) / (40075016.68557849 / 2 ^ $2))::int AS x,
                       floor((20037508.342789244 - py) / (40075016.68557849 / 2 ^ $2))::int AS y FROM c
     )
     SELECT x, y FROM t ORDER BY md5(x || '/' || y) LIMIT $3`,
    [siruta, z, limit],
  );
  return r.rows.map((row) => ({ z, x: row.x, y: row.y }));
}

interface TileAnswer {
  ms: number;
  status: number;
  /** The MVT as decoded by fetch. */
  bytes: number;
  /** On the wire: gzip-compressed (Content-Length). */
  wireBytes: number;
  cache: string | null;
}

const tileUrl = (source: string, t: Tile) => `${base}/tiles/${source}/${t.z}/${t.x}/${t.y}`;

async function fetchTile(url: string): Promise<TileAnswer> {
  const started = performance.now();
  const res = await fetch(url, { headers: { cookie } });
  const body = await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status !== 200 && res.status !== 204) throw new Error(`${url} answered ${res.status}`);
  return { ms, status: res.status, bytes: body.byteLength, wireBytes: Number(res.headers.get('content-length') ?? 0), cache: res.headers.get('x-tile-cache') };
}

/** The same request through node:http on `agent`, the body gunzipped in one call (see the header comment). */
function httpGet(agent: http.Agent, url: string, headers: Record<string, string>): Promise<TileAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { ...headers, 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const wire = Buffer.concat(chunks);
        const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(wire) : wire;
        const ms = performance.now() - started;
        if (res.statusCode !== 200 && res.statusCode !== 204) return reject(new Error(`${url} answered ${res.statusCode}`));
        resolve({ ms, status: res.statusCode, bytes: body.length, wireBytes: wire.length, cache: (res.headers['x-tile-cache'] as string | undefined) ?? null });
      });
    });
    req.on('error', reject);
  });
}

/** One keep-alive connection, as a map's tile requests reuse theirs. */
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const httpTile = (url: string) => httpGet(httpAgent, url, { cookie });

async function sequential(urls: string[], get: typeof fetchTile = fetchTile): Promise<TileAnswer[]> {
  const out: TileAnswer[] = [];
  for (const url of urls) out.push(await get(url));
  return out;
}

/** Every tile once, CONCURRENCY in flight: latencies and tiles per second. */
interface PassResult {
  answers: TileAnswer[];
  perS: number;
}

async function tilePass(get: (url: string) => Promise<TileAnswer>, urls: string[]): Promise<PassResult> {
  let next = 0;
  const answers: TileAnswer[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < urls.length) answers.push(await get(urls[next++]));
    }),
  );
  return { answers, perS: urls.length / ((performance.now() - started) / 1000) };
}

/** A new data version of the source, seen by the app once its version memo expires. */
async function bump(source: string): Promise<void> {
  await bumpTileVersion(getPool(), [source]);
  await idleAsBump();
}

/** The pause of a bump: until the web processes have re-read the versions. */
const idleAsBump = () => new Promise((r) => setTimeout(r, config.tiles.versionTtlMs + 150));

function emitLatency(bench: string, prefix: string, samples: number[]): void {
  const p = percentiles(samples);
  jsonLine(bench, `${prefix}_p50_ms`, p.p50, 'ms');
  jsonLine(bench, `${prefix}_p95_ms`, p.p95, 'ms');
  jsonLine(bench, `${prefix}_p99_ms`, p.p99, 'ms');
  jsonLine(bench, `${prefix}_samples`, p.n, 'requests');
}

const misses = (a: TileAnswer[]) => a.filter((x) => x.cache === 'miss').length;

async function benchZoom(source: string, short: string, z: number): Promise<{ uncachedP95: number; cachedP95: number; cachedHttpP95: number }> {
  const tiles = await tilesWithParcels(z, MAX_TILES);
  const rounds = Math.min(MAX_ROUNDS, Math.ceil(MIN_UNCACHED_SAMPLES / tiles.length));
  const cachedRounds = Math.max(MIN_CACHED_ROUNDS, Math.ceil(MIN_CACHED_SAMPLES / tiles.length));
  say(`${short} z${z}: ${tiles.length} distinct tiles × ${rounds} uncached rounds, × ${cachedRounds} cached rounds`);
  const urls = tiles.map((t) => tileUrl(source, t));
  const uncached: TileAnswer[] = [];
  for (let i = 0; i < rounds; i++) {
    await bump(source);
    uncached.push(...(await sequential(urls)));
  }
  const cached: TileAnswer[] = [];
  for (let i = 0; i < cachedRounds; i++) cached.push(...(await sequential(urls)));
  const cachedHttp: TileAnswer[] = [];
  for (let i = 0; i < cachedRounds; i++) cachedHttp.push(...(await sequential(urls, httpTile)));
  await bump(source);
  const tpUncached = await tilePass(fetchTile, urls);
  const tpCached = await tilePass(fetchTile, urls);

  const prefix = `${short}_z${z}`;
  emitLatency('tiles', `${prefix}_uncached`, uncached.map((a) => a.ms));
  emitLatency('tiles', `${prefix}_cached`, cached.map((a) => a.ms));
  emitLatency('tiles', `${prefix}_cached_http`, cachedHttp.map((a) => a.ms));
  jsonLine('tiles', `${prefix}_uncached_tiles_per_s`, tpUncached.perS, `tiles/s (${CONCURRENCY} in flight)`);
  jsonLine('tiles', `${prefix}_cached_tiles_per_s`, tpCached.perS, `tiles/s (${CONCURRENCY} in flight)`);
  jsonLine('tiles', `${prefix}_distinct_tiles`, tiles.length, 'tiles');
  jsonLine('tiles', `${prefix}_mean_kb`, uncached.reduce((s, a) => s + a.bytes, 0) / uncached.length / 1024, 'KiB');
  jsonLine('tiles', `${prefix}_mean_gzip_kb`, uncached.reduce((s, a) => s + a.wireBytes, 0) / uncached.length / 1024, 'KiB (gzip, on the wire)');
  // The cache header proves what was measured: every uncached answer a miss, every cached one a hit.
  const wrong =
    uncached.length - misses(uncached) + misses(cached) + misses(cachedHttp) + (tpUncached.answers.length - misses(tpUncached.answers)) + misses(tpCached.answers);
  jsonLine('tiles', `${prefix}_cache_state_mismatches`, wrong, 'requests');
  return {
    uncachedP95: percentiles(uncached.map((a) => a.ms)).p95,
    cachedP95: percentiles(cached.map((a) => a.ms)).p95,
    cachedHttpP95: percentiles(cachedHttp.map((a) => a.ms)).p95,
  };
}

async function benchTiles(): Promise<void> {
  let worstCachedP95 = 0;
  let worstCachedHttpP95 = 0;
  let worstLowZoomUncachedP95 = 0;
  const z16UncachedP95: Record<keyof typeof MEASURED, number> = { parcels: NaN, buildings: NaN };
  for (const what of ['parcels', 'buildings'] as const) {
    const { source, zooms } = MEASURED[what];
    for (const z of zooms) {
      const r = await benchZoom(source, what, z);
      worstCachedP95 = Math.max(worstCachedP95, r.cachedP95);
      worstCachedHttpP95 = Math.max(worstCachedHttpP95, r.cachedHttpP95);
      if (z === 16) z16UncachedP95[what] = r.uncachedP95;
      if (LOW_ZOOMS.includes(z)) worstLowZoomUncachedP95 = Math.max(worstLowZoomUncachedP95, r.uncachedP95);
    }
  }
  jsonLine(
    'tiles',
    'goal_uncached_z12_z14_p95_under_100ms',
    worstLowZoomUncachedP95 < GOAL_UNCACHED_LOW_ZOOM_P95_MS,
    `met? (worst uncached p95 ${Math.round(worstLowZoomUncachedP95 * 10) / 10} ms, parcels z12–z14, buildings z14)`,
  );
  jsonLine('tiles', 'goal_uncached_z16_p95_under_50ms', z16UncachedP95.parcels < GOAL_UNCACHED_Z16_P95_MS, `met? (parcels z16 p95 ${Math.round(z16UncachedP95.parcels * 10) / 10} ms)`);
  jsonLine('tiles', 'goal_buildings_uncached_z16_p95_under_50ms', z16UncachedP95.buildings < GOAL_UNCACHED_Z16_P95_MS, `met? (buildings z16 p95 ${Math.round(z16UncachedP95.buildings * 10) / 10} ms)`);
  // The goal is the server's: a cached tile through a lean keep-alive client (node:http, gunzip
  // in one call, as a browser's network stack decodes). fetch's own overhead (WHATWG-stream
  // gunzip over several event-loop turns) is printed beside it, not hidden.
  jsonLine('tiles', 'goal_cached_p95_under_5ms', worstCachedHttpP95 < GOAL_CACHED_P95_MS, `met? (worst cached p95 ${Math.round(worstCachedHttpP95 * 10) / 10} ms through node:http, z12–z16)`);
  jsonLine('tiles', 'cached_p95_fetch_client_ms', Math.round(worstCachedP95 * 10) / 10, 'ms (worst cached p95 through fetch, z12–z16: the server time above plus fetch\'s own)');
}

// ---- side by side with Martin -------------------------------------------------------------------

/**
 * The two stores of the side-by-side run (issue 45): the bench UAT, where a z16 tile holds
 * hundreds of parcels and its statement is most of its time, and a UAT of a few thousand parcels
 * as the demo's, where a tile's statement is cheap and the request path around it shows. Each
 * with its distinct z16 parcel tiles (each asked once per server and pass) and its passes in each
 * order (Martin first, ours first; medians over them are the result): the sparse passes are short,
 * so it has more of them. The goals are the issue's: the sparse store at or under Martin's p50 and
 * p95 with at least its tiles per second, the dense one at or under its p95.
 */
const MARTIN_STORES = [
  { store: 'dense', siruta: BENCH_SIRUTA, zooms: [16], tiles: 320, roundsPerOrder: 6, goal: ['p95'] },
  { store: 'sparse', siruta: SPARSE_SIRUTA, zooms: [16], tiles: 320, roundsPerOrder: 12, goal: ['p50', 'p95', 'perS'] },
  /**
   * The sparse store under sustained load: the 58 z16 tiles of `sparse` make a pass of about
   * 70 ms after a second and more of idleness (the version bump's wait), a burst rather than a
   * load. Here each pass asks every distinct tile of z16–z18 (about a thousand, a second or more
   * of work without a pause), where what a tile costs each server is its throughput. Not a goal
   * of the issue, which is measured as `sparse` is: printed beside it.
   */
  { store: 'sparse_sustained', siruta: SPARSE_SIRUTA, zooms: [16, 17, 18], tiles: 2000, roundsPerOrder: 3, goal: ['p50', 'p95', 'perS'] },
] as const;

/** One keep-alive pool of CONCURRENCY sockets a server, as a browser keeps to one origin. */
function tileClient(headers: Record<string, string>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  return { get: (url: string) => httpGet(agent, url, headers), close: () => agent.destroy() };
}

/**
 * The floor: the same tiles' statement (ours) timed inside PostgreSQL, EXPLAIN ANALYZE of the
 * prepared statement (planning + execution, no network, no HTTP), one at a time, in a session
 * set up as the tile pool's (TILE_SESSION_OPTIONS: JIT off, generic plans).
 */
async function sqlFloor(source: string, tiles: Tile[]): Promise<number[]> {
  const spec = tileSource(source)!;
  const pool = createPool(config.db.url, 1, TILE_SESSION_OPTIONS);
  const client = await pool.connect();
  try {
    // One prepared statement a zoom, as the tile pool's connections hold (statementFor).
    for (const z of new Set(tiles.map((t) => t.z))) {
      await client.query(`PREPARE bench_floor_${z}(int, int, int, text) AS ${statementFor(spec, z).text}`);
    }
    const out: number[] = [];
    for (const t of tiles) {
      const r = await client.query<{ 'QUERY PLAN': Array<{ 'Planning Time': number; 'Execution Time': number }> }>(
        `EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) EXECUTE bench_floor_${t.z}(${t.z}, ${t.x}, ${t.y}, '${source}')`,
      );
      const plan = r.rows[0]['QUERY PLAN'][0];
      out.push(plan['Planning Time'] + plan['Execution Time']);
    }
    return out;
  } finally {
    client.release();
    await pool.end();
  }
}

interface SideResult {
  p50: number;
  p95: number;
  perS: number;
}

const median = (xs: number[]) => percentiles(xs).p50;
/** The machine's load average over the last minute: each figure is printed with it (a shared 2-CPU machine). */
const load1m = () => Math.round(os.loadavg()[0] * 100) / 100;

/**
 * Issue 31, 45: the same z16 parcel tiles through Martin (cache off) and through our /tiles route
 * (our cache cold: the source's version is bumped before each of our passes; each of Martin's
 * passes waits as long first, so both start from the same idle time), each tile once per
 * server and pass, CONCURRENCY in flight, the same node:http client asking gzip of both; passes
 * in both orders, since whoever goes second finds PostgreSQL's buffers warm; on each store of
 * MARTIN_STORES, lines prefixed with its name.
 */
async function benchMartin(): Promise<void> {
  let bin: string;
  try {
    bin = await martinBinary(say);
  } catch (err) {
    jsonLine('tiles-vs-martin', 'error', `Martin ${MARTIN_VERSION} unavailable: ${(err as Error).message}`, 'skipped');
    return;
  }
  const spec = tileSource(PARCEL_SOURCE)!;
  const martin = await startMartin(bin, [spec], say);
  const ours = tileClient({ cookie });
  const theirs = tileClient({});
  try {
    for (const s of MARTIN_STORES) await sideBySide(s, martin.base, martin.pid, ours.get, theirs.get);
  } finally {
    ours.close();
    theirs.close();
    await martin.stop();
  }
}

async function sideBySide(
  s: (typeof MARTIN_STORES)[number],
  martinBase: string,
  martinPid: number,
  ourGet: (url: string) => Promise<TileAnswer>,
  theirGet: (url: string) => Promise<TileAnswer>,
): Promise<void> {
  const line = (metric: string, value: number | string | boolean, unit: string) => jsonLine('tiles-vs-martin', `${s.store}_${metric}`, value, unit);
  const tiles = (await Promise.all(s.zooms.map((z) => tilesWithParcels(z, s.tiles, s.siruta)))).flat();
  const zooms = `z${s.zooms.join(', z')}`;
  say(`side by side, ${s.store} store (UAT ${s.siruta}): ${tiles.length} ${zooms} tiles, ${2 * s.roundsPerOrder} passes`);
  const ourUrls = tiles.map((t) => tileUrl(PARCEL_SOURCE, t));
  const theirUrls = tiles.map((t) => `${martinBase}/${PARCEL_SOURCE}/${t.z}/${t.x}/${t.y}`);
  line('load_avg_1m_start', load1m(), 'load average (1 min) as the part starts');
  // Warm-up outside the measure, one whole pass each: connections, prepared statements (each
  // connection prepares its own), PostgreSQL's buffers for both, and the JIT of Node's paths,
  // which a web process just started has not compiled yet (twenty tiles left our first pass
  // a third slower than our later ones, 2026-11-26): a server in use has served these paths.
  await tilePass(theirGet, theirUrls);
  await bump(PARCEL_SOURCE);
  await tilePass(ourGet, ourUrls);
  const results: Record<'martin' | 'ours', SideResult[]> = { martin: [], ours: [] };
  let notMisses = 0;
  let ourBytes = 0;
  let theirBytes = 0;
  let ourWire = 0;
  let theirWire = 0;
  // CPU a tile of each server's processes and of PostgreSQL's, over its passes (issue 45: what a
  // tile costs decides where the host is slow). Ours: the process on the app's port (the tile
  // gateway, or the web process itself with TILE_GATEWAY=0) and the web process behind it.
  const ourPids = withChildren([listenerOf(config.app.port), listenerOf(config.tiles.internalPort)]);
  const postmaster = [listenerOf(config.db.port)];
  const cpu = { ours: { server: 0, pg: 0, tiles: 0 }, martin: { server: 0, pg: 0, tiles: 0 } };
  const measured = async (who: 'ours' | 'martin', pass: () => Promise<PassResult>) => {
    const server = who === 'ours' ? ourPids : [martinPid];
    const pg = withChildren(postmaster);
    const [s0, p0] = [cpuNs(server), cpuNs(pg)];
    const r = await pass();
    cpu[who].server += cpuNs(server) - s0;
    cpu[who].pg += cpuNs([...new Set([...pg, ...withChildren(postmaster)])]) - p0;
    cpu[who].tiles += r.answers.length;
    return r;
  };
  const runOurs = async () => {
    await bump(PARCEL_SOURCE);
    const r = await measured('ours', () => tilePass(ourGet, ourUrls));
    notMisses += r.answers.length - misses(r.answers);
    ourBytes = r.answers.reduce((a, x) => a + x.bytes, 0) / r.answers.length;
    ourWire = r.answers.reduce((a, x) => a + x.wireBytes, 0) / r.answers.length;
    return r;
  };
  const runTheirs = async () => {
    // The same idle time before Martin's pass as before ours (the bump's wait): a pass that
    // started at once after the other server's found the machine busy and its caches warm, ours
    // never did, and which server a pass follows must not decide the comparison.
    await idleAsBump();
    const r = await measured('martin', () => tilePass(theirGet, theirUrls));
    theirBytes = r.answers.reduce((a, x) => a + x.bytes, 0) / r.answers.length;
    theirWire = r.answers.reduce((a, x) => a + x.wireBytes, 0) / r.answers.length;
    return r;
  };
  for (let round = 0; round < 2 * s.roundsPerOrder; round++) {
    const martinFirst = round % 2 === 0;
    const order = martinFirst ? 'martin_first' : 'ours_first';
    const pair = martinFirst ? { martin: await runTheirs(), ours: await runOurs() } : { ours: await runOurs(), martin: await runTheirs() };
    for (const who of ['martin', 'ours'] as const) {
      const p = percentiles(pair[who].answers.map((a) => a.ms));
      results[who].push({ p50: p.p50, p95: p.p95, perS: pair[who].perS });
      line(`${order}_${round >> 1}_${who}_p50_ms`, p.p50, 'ms');
      line(`${order}_${round >> 1}_${who}_p95_ms`, p.p95, 'ms');
      line(`${order}_${round >> 1}_${who}_tiles_per_s`, pair[who].perS, `tiles/s (${CONCURRENCY} in flight)`);
    }
    line(`${order}_${round >> 1}_load_avg_1m`, load1m(), 'load average (1 min) after the pair');
  }
  const floor = percentiles(await sqlFloor(PARCEL_SOURCE, tiles));
  const m = (who: 'martin' | 'ours', k: keyof SideResult) => median(results[who].map((r) => r[k]));
  for (const who of ['martin', 'ours'] as const) {
    line(`${who}_p50_ms`, m(who, 'p50'), `ms (median of ${results[who].length} passes, both orders)`);
    line(`${who}_p95_ms`, m(who, 'p95'), `ms (median of ${results[who].length} passes, both orders)`);
    line(`${who}_tiles_per_s`, m(who, 'perS'), `tiles/s (median of ${results[who].length} passes)`);
  }
  line('floor_sql_p50_ms', floor.p50, "ms (the same tiles' statement inside PostgreSQL, one at a time)");
  line('floor_sql_p95_ms', floor.p95, 'ms');
  line('tiles', tiles.length, `distinct ${zooms} tiles of ${PARCEL_SOURCE} in UAT ${s.siruta}, each once per server and pass`);
  line('martin_mean_kb', theirBytes / 1024, 'KiB (decoded MVT)');
  line('ours_mean_kb', ourBytes / 1024, 'KiB (decoded MVT)');
  line('martin_mean_wire_kb', theirWire / 1024, 'KiB (the body as sent, gzip where the server compressed it)');
  line('ours_mean_wire_kb', ourWire / 1024, 'KiB (the body as sent, gzip where the server compressed it)');
  line('ours_cache_state_mismatches', notMisses, 'requests (each of ours must be a cache miss)');
  for (const who of ['martin', 'ours'] as const) {
    const per = (ns: number) => ns / 1000 / Math.max(1, cpu[who].tiles);
    line(`${who}_server_cpu_us_per_tile`, per(cpu[who].server), `µs of CPU a tile, the server's processes (${who === 'ours' ? 'the tile gateway and the web process' : 'Martin'}), over all its passes`);
    line(`${who}_pg_cpu_us_per_tile`, per(cpu[who].pg), "µs of CPU a tile, PostgreSQL's processes, over the server's passes");
  }
  line('load_avg_1m_end', load1m(), 'load average (1 min) as the part ends');
  // Each round's two passes ran back to back, so their differences are what the host moved least
  // between: whether the gap at a goal is beyond what the passes vary by (scripts/bench/_stats.ts).
  const verdicts = s.goal.map((k) => {
    const d = pairedDifference(
      results.ours.map((r) => r[k]),
      results.martin.map((r) => r[k]),
    );
    const unit = k === 'perS' ? 'tiles/s' : 'ms';
    line(`${k}_paired_diff`, d.median, `${unit} (ours − Martin, median of ${d.n} pairs of passes)`);
    line(`${k}_paired_diff_ci_low`, d.low, `${unit} (sign-test interval, ${(d.confidence * 100).toFixed(1)} % coverage)`);
    line(`${k}_paired_diff_ci_high`, d.high, unit);
    return `${k} ${verdictOf(d, k !== 'perS')}`;
  });
  line('verdict_paired', verdicts.join(', '), 'ahead / behind: the whole 95 % interval of the paired difference on that side of zero; level: it holds zero');
  const met = s.goal.every((k) => (k === 'perS' ? m('ours', k) >= m('martin', k) : m('ours', k) <= m('martin', k)));
  line(
    `goal_ours_at_or_under_martin_${s.goal.join('_')}`,
    met,
    `met? (p50 ${m('ours', 'p50').toFixed(1)} vs ${m('martin', 'p50').toFixed(1)} ms, p95 ${m('ours', 'p95').toFixed(1)} vs ${m('martin', 'p95').toFixed(1)} ms, ${Math.round(m('ours', 'perS'))} vs ${Math.round(m('martin', 'perS'))} tiles/s; goal on ${s.goal.join(', ')})`,
  );
}

// ---- search -------------------------------------------------------------------------------------

async function benchSearch(): Promise<void> {
  const db = getPool();
  const uats = (await db.query<{ name: string }>(`SELECT name FROM gis_uats WHERE name IS NOT NULL ORDER BY md5(siruta::text) LIMIT $1`, [SEARCH_SAMPLES - 1])).rows.map(
    (r) => r.name,
  );
  const refs = (
    await db.query<{ ref: string }>(
      `SELECT cadastral_ref AS ref FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND cadastral_ref IS NOT NULL ORDER BY md5(id::text) LIMIT $2`,
      [BENCH_SIRUTA, SEARCH_SAMPLES],
    )
  ).rows.map((r) => r.ref);
  const owners = (
    await db.query<{ p: string }>(
      `SELECT enrichment->>'PROPRIETARI' AS p FROM gis_features
        WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND enrichment->>'PROPRIETARI' IS NOT NULL ORDER BY md5(id::text) LIMIT $2`,
      [BENCH_SIRUTA, SEARCH_SAMPLES],
    )
  ).rows
    .map((r) => parseOwners(r.p)[0]?.name)
    .filter((n): n is string => !!n)
    .map((n) => n.split(' ')[0].toLowerCase()); // a surname, as typed
  const kinds: Array<[string, string[]]> = [
    ['uat', ['Cluj-Napoca', ...uats]],
    ['cadastral_ref', refs],
    ['cadastral_typed', refs.flatMap((r) => [r.slice(0, 1), r.slice(0, 2), r.slice(0, 3)])],
    ['owner', owners],
  ];
  await fetch(`${base}/api/geoportal/search?q=cluj`, { headers: { cookie } }); // warm-up
  for (const [kind, queries] of kinds) {
    if (queries.length === 0) {
      jsonLine('geoportal-search', `${kind}_samples`, 0, 'requests (nothing to search: no enriched parcel in the store)');
      continue;
    }
    const times: number[] = [];
    let hits = 0;
    for (const q of queries) {
      const t = performance.now();
      const res = await fetch(`${base}/api/geoportal/search?q=${encodeURIComponent(q)}`, { headers: { cookie } });
      const body = (await res.json()) as { results?: unknown[] };
      times.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`search ${q} answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      hits += body.results?.length ?? 0;
    }
    emitLatency('geoportal-search', kind, times);
    jsonLine('geoportal-search', `${kind}_hits_per_query`, hits / queries.length, 'results');
  }
}

// ---- export -------------------------------------------------------------------------------------

async function benchExport(): Promise<void> {
  const db = getPool();
  // A map selection: the 5,000 parcels nearest to the centre of the UAT's parcels.
  const ids = (
    await db.query<{ id: string }>(
      `WITH c AS (SELECT ST_SetSRID(ST_Centroid(ST_Extent(geom_3857)::geometry), 3857) AS p FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE')
       SELECT f.id::text AS id FROM gis_features f, c
        WHERE f.siruta = $1 AND f.layer_id = 'TERENURI_ACTIVE' AND f.geom_3857 IS NOT NULL
        ORDER BY f.geom_3857 <-> c.p LIMIT $2`,
      [BENCH_SIRUTA, EXPORT_PARCELS],
    )
  ).rows.map((r) => r.id);
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'tiles-bench-export-'));
  try {
    const sqlFile = path.join(tmp, 'plain.sql');
    await fs.writeFile(
      sqlFile,
      `SELECT f.id::text AS id, f.siruta, f.object_id, f.cadastral_ref, f.area_value, f.geom FROM public.gis_features f WHERE f.id IN (${ids.map((id) => `'${id}'`).join(',')})`,
    );
    const plain: number[] = [];
    const route: number[] = [];
    let bytes = 0;
    let count = 0;
    for (let i = 0; i < EXPORT_RUNS; i++) {
      const out = path.join(tmp, `plain-${i}.gpkg`);
      let t = performance.now();
      await ogr2ogr(['-f', 'GPKG', out, pgDatasource(), '-sql', `@${sqlFile}`, '-nln', 'parcele', '-a_srs', EPSG_3844, '-nlt', 'MULTIPOLYGON']);
      plain.push(performance.now() - t);

      t = performance.now();
      const res = await fetch(`${base}/api/geoportal/export`, {
        method: 'POST',
        headers: { cookie, origin: new URL(base).origin, 'content-type': 'application/json' },
        body: JSON.stringify({ format: 'gpkg', featureIds: ids }),
      });
      const body = await res.arrayBuffer();
      route.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`export answered ${res.status}: ${Buffer.from(body).toString('utf8').slice(0, 200)}`);
      bytes = body.byteLength;
      count = Number(res.headers.get('x-feature-count'));
    }
    const med = (xs: number[]) => percentiles(xs).p50;
    jsonLine('geoportal-export', 'parcels', count, 'features');
    jsonLine('geoportal-export', 'route_gpkg_ms', med(route), `ms (median of ${EXPORT_RUNS}, through HTTP)`);
    jsonLine('geoportal-export', 'plain_ogr2ogr_gpkg_ms', med(plain), `ms (median of ${EXPORT_RUNS})`);
    jsonLine('geoportal-export', 'route_vs_plain', med(route) / med(plain), 'ratio');
    jsonLine('geoportal-export', 'gpkg_kb', bytes / 1024, 'KiB');
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  await ensureBenchUatSynced(say);
  if (part('martin')) await ensureSparseUatSynced(say);
  await waitForIdleTileArchive(say);
  const session = await createTestSessionRecord({ email: 'bench-tiles@birou.ro', enrichmentScope: 'full' });
  cookie = session.cookie;
  try {
    if (part('martin')) await benchMartin();
    if (part('zooms')) await benchTiles();
    if (part('search')) await benchSearch();
    if (part('export')) await benchExport();
  } finally {
    await session.end();
  }
}

runBench(main, () => httpAgent.destroy());
