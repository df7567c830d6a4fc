/**
 * Helpers shared by the benchmarks of scripts/bench/ (files starting with `_` are not run by
 * `npm run bench`). Run with STACK_PROFILE=bench (the harness sets it), so domain/config points
 * at the bench stack.
 *
 *   jsonLine(bench, metric, value, unit)  one JSON line on stdout, the harness's format
 *   percentiles(samples)                  p50/p95/p99/min/max/mean of a list of numbers
 *   ensureBenchUatSynced()                the bench UAT's parcels and buildings in the store,
 *                                         synced through the real uatSync workflow when missing
 *   ensureSparseUatSynced()               the same for SPARSE_SIRUTA, a UAT of a few thousand
 *                                         parcels (the simulator's demo scale, as `npm start` seeds)
 *   benchServices()                       the areas' services on the bench stack's store
 */
import { config } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { processStore } from '../../domain/db/store';
import { DEFAULT_SYNC_LAYERS } from '../../domain/landreg/rules';
import { type Services } from '../../domain/services';
import { processServices } from '../../temporal/services';
import { BENCH_SIRUTA } from '../../simulators/landreg/store';
import { closeTemporalClient, getTemporalClient } from '../../temporal/client';
import { start } from '../../temporal/jobs';

export { BENCH_SIRUTA };

let services: Services | undefined;
/** The areas' services on the bench stack's store, built once (no bench sends mail through them). */
export function benchServices(): Services {
  services ??= processServices(processStore(), { mail: null });
  return services;
}

/**
 * The sparse store of the tiles bench (issue 45): Sfântu Gheorghe, a county-seat municipality,
 * 2,400 parcels and their buildings as the simulator generates them at demo scale, the size of
 * the UATs `npm start` seeds. Its tiles hold tens of features where the bench UAT's hold hundreds,
 * so a tile's statement is cheap and the request path around it shows.
 */
export const SPARSE_SIRUTA = 63394;

/** Prints one result line: `{"bench":…,"metric":…,"value":…,"unit":…}` (value rounded to 0.01). */
export function jsonLine(bench: string, metric: string, value: number | string | boolean, unit: string): void {
  const v = typeof value === 'number' ? Math.round(value * 100) / 100 : value;
  process.stdout.write(`${JSON.stringify({ bench, metric, value: v, unit })}\n`);
}

/**
 * A JSON call to the bench stack's land-registry simulator (its routes and `/__sim` controls); an
 * answer other than 2xx throws, so a bench never measures on top of a control that failed.
 */
export async function simJson<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${config.landreg.baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}`);
  return (await res.json()) as T;
}

/** Progress for humans, on stderr (stdout carries only JSON lines). */
export function note(bench: string, msg: string): void {
  process.stderr.write(`[bench:${bench}] ${msg}\n`);
}

export interface Percentiles {
  n: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles of the samples (the input is not modified). */
export function percentiles(samples: readonly number[]): Percentiles {
  if (samples.length === 0) return { n: 0, min: NaN, p50: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return { n: s.length, min: s[0], p50: at(50), p95: at(95), p99: at(99), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length };
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return (await getPool().query<{ n: number }>(sql, params)).rows[0].n;
}

const layerCount = (layer: string, siruta: number) =>
  count(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = $2`, [siruta, layer]);

/** Sync jobs of the UAT already running (another bench, e.g. 20-sync, may have started one). */
async function runningSyncOf(siruta: number): Promise<string[]> {
  const client = await getTemporalClient();
  const ids: string[] = [];
  const q = `ExecutionStatus = 'Running' AND JobKind IN ('sync', 'sync-background') AND Siruta = ${siruta}`;
  for await (const wf of client.workflow.list({ query: q })) ids.push(wf.workflowId);
  return ids;
}

export interface BenchUatState {
  siruta: number;
  parcels: number;
  buildings: number;
  /** True when this call ran (or waited for) a sync. */
  synced: boolean;
  syncMs: number;
}

/**
 * Makes sure the store holds the bench UAT (Cluj-Napoca, SIRUTA 54975) with its boundary, its
 * TERENURI_ACTIVE parcels and CLADIRI_ACTIVE buildings. When parcels or buildings are missing it
 * syncs them the way the product does (scripts/seed-demo.ts): the UAT catalogue refresh
 * workflow if the catalogue is empty, the catalogue patch for UAT boundaries, then a `uatSync`
 * workflow (base mode, both layers, no overview rebuild so nothing heavy runs behind a later
 * bench) on the bench stack's workers, and waits. A sync of the UAT already running is waited
 * for instead of started twice.
 */
export function ensureBenchUatSynced(log: (msg: string) => void = (m) => note('shared', m)): Promise<BenchUatState> {
  return ensureUatSynced(BENCH_SIRUTA, log);
}

/**
 * The same for SPARSE_SIRUTA. Only the demo scale of the simulator holds it, so for a missing
 * sync the simulator is switched to that scale (same seed) and back afterwards, as the county
 * bench does for its scale; the bench UAT's rows in the store are not touched.
 */
export async function ensureSparseUatSynced(log: (msg: string) => void = (m) => note('shared', m)): Promise<BenchUatState> {
  if ((await layerCount('TERENURI_ACTIVE', SPARSE_SIRUTA)) > 0 && (await layerCount('CLADIRI_ACTIVE', SPARSE_SIRUTA)) > 0) {
    return ensureUatSynced(SPARSE_SIRUTA, log);
  }
  const info = await simJson<{ scale: string; seed: number }>('GET', '/__sim/info');
  if (info.scale !== 'demo') await simJson('POST', '/__sim/reset', { scale: 'demo', seed: info.seed });
  try {
    return await ensureUatSynced(SPARSE_SIRUTA, log);
  } finally {
    if (info.scale !== 'demo') await simJson('POST', '/__sim/reset', { scale: info.scale, seed: info.seed });
  }
}

async function ensureUatSynced(siruta: number, log: (msg: string) => void): Promise<BenchUatState> {
  const started = Date.now();
  let synced = false;
  const client = await getTemporalClient();
  if ((await count(`SELECT count(*)::int AS n FROM gis_uats`)) === 0) {
    log('UAT catalogue empty: running uatCatalogRefresh');
    await (await start('uat-catalog-refresh', {}, { existing: 'accept' })).handle.result();
  }
  if ((await count(`SELECT count(*)::int AS n FROM gis_uats WHERE siruta = $1 AND geom IS NOT NULL`, [siruta])) === 0) {
    log(`no boundary for UAT ${siruta}: patching the UAT catalogue`);
    await benchServices().landreg.patchUatCatalogue();
  }
  let running = await runningSyncOf(siruta);
  if (running.length === 0 && ((await layerCount('TERENURI_ACTIVE', siruta)) === 0 || (await layerCount('CLADIRI_ACTIVE', siruta)) === 0)) {
    const { jobId, handle } = await start(
      'sync-background',
      { siruta, layers: [...DEFAULT_SYNC_LAYERS], mode: 'base', trigger: 'manual', requestTileRebuild: false },
      { portalStarts: benchServices().landreg.portalStarts },
    );
    log(`syncing UAT ${siruta} (${DEFAULT_SYNC_LAYERS.join(', ')}) as ${jobId}`);
    running = [handle.workflowId];
  }
  for (const id of running) {
    log(`waiting for ${id}`);
    await client.workflow.getHandle(id).result();
    synced = true;
  }
  const state = { siruta, parcels: await layerCount('TERENURI_ACTIVE', siruta), buildings: await layerCount('CLADIRI_ACTIVE', siruta), synced, syncMs: Date.now() - started };
  if (state.parcels === 0) throw new Error(`UAT ${siruta} has no parcels after the sync`);
  log(`UAT ${siruta}: ${state.parcels} parcels, ${state.buildings} buildings${synced ? ` (synced in ${Math.round(state.syncMs / 1000)} s)` : ''}`);
  return state;
}

/** Waits while an overview (PMTiles) build runs: it loads the database and would skew timings. */
export async function waitForIdleTileArchive(log: (msg: string) => void, maxMs = 15 * 60_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let said = false;
  while ((await count(`SELECT count(*)::int AS n FROM tile_archive_builds WHERE status = 'running' AND started_at > now() - interval '1 hour'`)) > 0) {
    if (!said) log('an overview archive build is running: waiting for it before measuring');
    said = true;
    if (Date.now() > deadline) throw new Error('an overview archive build is still running');
    await new Promise((r) => setTimeout(r, 2000));
  }
}

/**
 * Runs a bench file's `main`: a failure goes to stderr with its stack and sets exit code 1; the
 * Temporal client and the pool are closed either way (after `cleanup`, e.g. an HTTP agent), so
 * the process ends on its own.
 */
export function runBench(main: () => Promise<void>, cleanup?: () => void): void {
  main()
    .catch((err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exitCode = 1;
    })
    .finally(async () => {
      cleanup?.();
      await Promise.allSettled([closeTemporalClient(), closePool()]);
    });
}
