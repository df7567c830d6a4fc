/**
 * Benchmark of the land-registry simulator at `bench` scale (Cluj-Napoca, 200,000 parcels), so
 * a sync benchmark can show the simulator is not its bottleneck (issue 4, deliverable 4).
 *
 *   npx tsx scripts/bench/10-landreg-sim.ts        (LANDREG_SIM_SEED picks the seed, default 42)
 *
 * Starts the simulator in-process on a free port and prints one JSON object per line on stdout:
 * {"bench":"landreg-sim","metric":…,"value":…,"unit":…}. Progress goes to stderr. Latencies are
 * measured from the client side of a real HTTP call (request sent → whole body read), over
 * loopback, with the client in the same process (so they include a little client work too).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { config } from '../../domain/config';
import { startLandregSimulator } from '../../simulators/landreg/server';
import { BENCH_SIRUTA } from '../../simulators/landreg/store';

const BENCH = 'landreg-sim';
const SAMPLES = 50;
const LAYER = 'TERENURI_ACTIVE';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function emit(metric: string, value: number, unit: string): void {
  process.stdout.write(`${JSON.stringify({ bench: BENCH, metric, value: Math.round(value * 100) / 100, unit })}\n`);
}

function note(msg: string): void {
  process.stderr.write(`[bench:${BENCH}] ${msg}\n`);
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
}

const started = performance.now();
const baseHeap = heapMb();
const sim = await startLandregSimulator({ port: 0, seed: config.landreg.simSeed, scale: 'bench' });
try {
  const { store } = sim.state();
  note(`simulator on ${sim.url}, generating UAT ${BENCH_SIRUTA}`);

  // ---- generation: time and memory of the 200,000-parcel UAT --------------------------------
  const heapBefore = heapMb();
  const t0 = performance.now();
  const data = store.get(BENCH_SIRUTA);
  const genMs = performance.now() - t0;
  if (!data) throw new Error(`the bench UAT ${BENCH_SIRUTA} holds no data`);
  const parcels = data.layers.get(LAYER)!.features.length;
  emit('generate_ms', genMs, 'ms');
  emit('generate_parcels', parcels, 'features');
  emit('generate_buildings', data.layers.get('CLADIRI_ACTIVE')!.features.length, 'features');
  emit('generate_immovables', data.immovables.length, 'immovables');
  emit('generate_heap_mb', heapMb() - heapBefore, 'MB');
  emit('process_heap_mb', heapMb() - baseHeap, 'MB');
  emit('process_rss_mb', process.memoryUsage().rss / 1048576, 'MB');

  // ---- a session, as the portal client has ---------------------------------------------------
  const login = await fetch(`${sim.url}/eterra/api/authentication`, {
    method: 'POST',
    body: new URLSearchParams({ j_username: config.landreg.username, j_password: config.landreg.password }),
  });
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const where = `ADMIN_UNIT_ID=${BENCH_SIRUTA}`;
  const url = (params: Record<string, string>) =>
    `${sim.url}/eterra/api/map/rest/${LAYER}/query?${new URLSearchParams({ f: 'json', where, ...params })}`;
  const call = async (params: Record<string, string>): Promise<{ ms: number; bytes: number; body: string }> => {
    const t = performance.now();
    const res = await fetch(url(params), { headers: { cookie } });
    const body = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200 || body.startsWith('{"error"')) throw new Error(`query answered ${res.status}: ${body.slice(0, 200)}`);
    return { ms, bytes: body.length, body };
  };
  const series = async (name: string, n: number, params: (i: number) => Record<string, string>) => {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const r = await call(params(i));
      times.push(r.ms);
      bytes += r.bytes;
    }
    times.sort((a, b) => a - b);
    emit(`${name}_p50_ms`, percentile(times, 50), 'ms');
    emit(`${name}_p95_ms`, percentile(times, 95), 'ms');
    emit(`${name}_p99_ms`, percentile(times, 99), 'ms');
    emit(`${name}_kb`, bytes / n / 1024, 'KiB');
  };

  // The first query scans the UAT's features; later pages of the same filter reuse the match list.
  emit('first_query_ms', (await call({ returnCountOnly: 'true' })).ms, 'ms');
  await series('count', SAMPLES, () => ({ returnCountOnly: 'true' }));
  await series('ids', 20, () => ({ returnIdsOnly: 'true' }));
  // Pages at spread-out offsets (a fixed stride, so every run asks the same pages).
  const pages = Math.ceil(parcels / 1000);
  const offset = (i: number) => String(((i * 37) % pages) * 1000);
  await series('page_geometry', SAMPLES, (i) => ({ outFields: '*', resultOffset: offset(i), resultRecordCount: '1000' }));
  await series('page_no_geometry', SAMPLES, (i) => ({ outFields: '*', returnGeometry: 'false', resultOffset: offset(i), resultRecordCount: '1000' }));
  await series('page_wgs84', 20, (i) => ({ outFields: '*', outSR: '4326', resultOffset: offset(i), resultRecordCount: '1000' }));

  // ---- a whole UAT, as a sync pages it ---------------------------------------------------------
  const pageThrough = async (workers: number) => {
    let next = 0;
    let features = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (;;) {
          const at = next;
          next += 1000;
          if (at >= parcels) return;
          const r = await call({ outFields: '*', resultOffset: String(at), resultRecordCount: '1000' });
          features += (JSON.parse(r.body) as { features: unknown[] }).features.length;
        }
      }),
    );
    const s = (performance.now() - t) / 1000;
    if (features !== parcels) throw new Error(`paged ${features} features of ${parcels}`);
    return { s, rate: features / s };
  };
  const seq = await pageThrough(1);
  emit('pagethrough_seconds', seq.s, 's');
  emit('pagethrough_features_per_s', seq.rate, 'features/s');
  const par = await pageThrough(4);
  emit('pagethrough_4_workers_features_per_s', par.rate, 'features/s');
  emit('total_seconds', (performance.now() - started) / 1000, 's');
} finally {
  await sim.close();
}
