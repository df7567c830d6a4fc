/**
 * The process's metrics (docs/operations.md "Watching it"): one prom-client registry per process,
 * served by the web process at `/metrics` (api/routes/metrics.ts) and by each worker process on
 * its own port (workers/metrics.ts). Every family is defined here, so the names, labels and
 * buckets that the dashboard and the alert rules (docs/grafana, docs/prometheus) read are in one
 * place; the code where an event happens only increments or observes.
 *
 * Labels stay bounded: route templates (never raw paths), kinds and services from fixed lists,
 * statuses. Nothing personal and no id ever becomes a label.
 */
import cluster from 'node:cluster';
import type pg from 'pg';
import { config } from './config';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const metricsRegistry = new Registry();
// Event-loop lag (nodejs_eventloop_lag_*: the monitorEventLoopDelay histogram's mean and
// percentiles), heap and resident memory, GC pauses, handles: prom-client's defaults.
collectDefaultMetrics({ register: metricsRegistry });

/** Seconds: requests and outside calls run from a millisecond (a cached tile) to minutes (an export). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds: a job runs from a second (a mail) to hours (a county's sync). */
const JOB_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400, 43200];

type RequestLabel = 'route' | 'method' | 'status';

/** One (route, method, status) of the request families: the counter's and the histogram's numbers. */
interface RequestSeries {
  labels: Record<RequestLabel, string>;
  count: number;
  sum: number;
  /** Observations a bucket of LATENCY_BUCKETS, not cumulative (above the last: only in count). */
  buckets: number[];
}

const requestSeries = new Map<string, RequestSeries>();

/**
 * One answered request (api/http/metrics.ts) in both request families. prom-client hashes a
 * label object on every inc and observe, the children `labels()` returns included (15.x): a few
 * per cent of a sparse tile's time in the web process (issue 45, docs/tiles.md). Here a request
 * is one Map lookup and a few additions; the families read the records when /metrics is scraped.
 */
export function recordRequest(route: string, method: string, status: number, seconds: number): void {
  const key = `${status} ${method} ${route}`;
  let s = requestSeries.get(key);
  if (s === undefined) {
    s = { labels: { route, method, status: String(status) }, count: 0, sum: 0, buckets: LATENCY_BUCKETS.map(() => 0) };
    requestSeries.set(key, s);
  }
  s.count++;
  s.sum += seconds;
  for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
    if (seconds <= LATENCY_BUCKETS[i]) {
      s.buckets[i]++;
      break;
    }
  }
}

/** The request counter, its samples read from requestSeries. */
class RequestCounter extends Counter<RequestLabel> {
  override async get() {
    return { ...(await super.get()), values: [...requestSeries.values()].map((s) => ({ labels: s.labels, value: s.count })) };
  }
}

/**
 * The request histogram, its samples read from requestSeries (buckets cumulative, as the format
 * wants), in prom-client's own shape (the bucket's `le` apart from the series' labels), which its
 * get() splays: the cluster's aggregation (serveClusterScrapes) reads a histogram through get().
 */
class RequestHistogram extends Histogram<RequestLabel> {
  /** The registry reads a histogram's text through this, and prom-client's get() through it too. */
  async getForPromString() {
    const name = 'geoportal_http_request_duration_seconds';
    const values = [...requestSeries.values()].flatMap((s) => {
      let acc = 0;
      return [
        ...LATENCY_BUCKETS.map((le, i) => ({ labels: { le }, sharedLabels: s.labels, value: (acc += s.buckets[i]), metricName: `${name}_bucket` })),
        { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket` },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` },
      ];
    });
    return { name, help: HTTP_DURATION_HELP, type: 'histogram', values, aggregator: 'sum' };
  }
}

const HTTP_DURATION_HELP = 'Time from a request arriving to its answer finishing, by route template, method and status.';

new RequestCounter({
  name: 'geoportal_http_requests_total',
  help: 'HTTP requests answered, by route template, method and status.',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [metricsRegistry],
});

new RequestHistogram({
  name: 'geoportal_http_request_duration_seconds',
  help: HTTP_DURATION_HELP,
  labelNames: ['route', 'method', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

/** `cap`: the limiter that refused (user, token, bearer_failures: CONTRACT.md section 5). */
export const rateLimited = new Counter({
  name: 'geoportal_rate_limited_total',
  help: 'Requests refused with 429 by the per-minute rate limits, by cap.',
  labelNames: ['cap'] as const,
  registers: [metricsRegistry],
});

/** `cap`: user (the caller's own slots were full) or global (everyone's were). */
export const heavyWorkRefused = new Counter({
  name: 'geoportal_heavy_work_refused_total',
  help: 'Heavy work refused with 429 (domain/concurrency.ts WorkSlots), by kind and cap.',
  labelNames: ['kind', 'cap'] as const,
  registers: [metricsRegistry],
});

const workSlots = new Map<string, { active: number; queued: number }>();

/** A named WorkSlots shows its work in flight and waiting; the last one of a kind wins (one per kind per process). */
export function trackWorkSlots(kind: string, slots: { active: number; queued: number }): void {
  workSlots.set(kind, slots);
}

new Gauge({
  name: 'geoportal_heavy_work_in_flight',
  help: 'Heavy work holding a slot now, by kind.',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [kind, slots] of workSlots) this.set({ kind }, slots.active);
  },
});

new Gauge({
  name: 'geoportal_heavy_work_waiting',
  help: 'Heavy work waiting in its short bounded queue now, by kind.',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [kind, slots] of workSlots) this.set({ kind }, slots.queued);
  },
});

/**
 * `outcome`: ok (an answer came back), unavailable (the last try failed in a way the client
 * counts as passing: a 5xx, a timeout, no answer), error (any other failure: a refusal,
 * maintenance, a malformed answer, a wrong account), aborted (the caller left first: its request
 * closed, its activity was cancelled).
 */
export const outsideCalls = new Counter({
  name: 'geoportal_outside_calls_total',
  help: 'Calls to outside services (domain/outside/call.ts outsideCall, retries included), by service and outcome.',
  labelNames: ['service', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const outsideCallDuration = new Histogram({
  name: 'geoportal_outside_call_duration_seconds',
  help: 'Duration of calls to outside services, retries and waits for the shared pace included, by service and outcome.',
  labelNames: ['service', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const tileCacheResults = { hit: 0, miss: 0 };

/** A tile asked of the in-process cache: two numbers, read at scrape time (as recordRequest, issue 45). */
export function countTileCacheRequest(result: keyof typeof tileCacheResults): void {
  tileCacheResults[result]++;
}

new Counter({
  name: 'geoportal_tile_cache_requests_total',
  help: 'Vector tiles asked of the in-process tile cache, by result (hit, miss).',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const [result, n] of Object.entries(tileCacheResults)) this.inc({ result }, n);
  },
});

let tileCacheStats: (() => { entries: number; bytes: number }) | undefined;

/** The tile cache's size, read at scrape time (domain/tiles/mvt.ts). */
export function trackTileCache(stats: () => { entries: number; bytes: number }): void {
  tileCacheStats = stats;
}

new Gauge({
  name: 'geoportal_tile_cache_entries',
  help: 'Tiles held by the in-process tile cache.',
  registers: [metricsRegistry],
  collect() {
    if (tileCacheStats) this.set(tileCacheStats().entries);
  },
});

new Gauge({
  name: 'geoportal_tile_cache_bytes',
  help: 'Bytes of gzip-compressed tiles held by the in-process tile cache.',
  registers: [metricsRegistry],
  collect() {
    if (tileCacheStats) this.set(tileCacheStats().bytes);
  },
});

const pools = new Map<string, pg.Pool>();

/**
 * The pools an entry point's store holds (`pool`, `tilePool`): their connections and, above all,
 * the queries waiting for one (a pool too small for the load shows there first).
 */
export function trackPools(named: Record<string, pg.Pool>): void {
  for (const [name, pool] of Object.entries(named)) {
    // A store on one pool (storeOn) names it twice: counted once, under the first name.
    if (![...pools.values()].includes(pool)) pools.set(name, pool);
  }
}

new Gauge({
  name: 'geoportal_db_pool_connections',
  help: 'Connections of a PostgreSQL pool, by pool and state (total, idle).',
  labelNames: ['pool', 'state'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [name, pool] of pools) {
      this.set({ pool: name, state: 'total' }, pool.totalCount);
      this.set({ pool: name, state: 'idle' }, pool.idleCount);
    }
  },
});

new Gauge({
  name: 'geoportal_db_pool_waiting',
  help: 'Queries waiting for a connection of a PostgreSQL pool, by pool.',
  labelNames: ['pool'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [name, pool] of pools) this.set({ pool: name }, pool.waitingCount);
  },
});

/** Jobs (Temporal workflows) a worker process began running, by job kind. */
export const jobsStarted = new Counter({
  name: 'geoportal_jobs_started_total',
  help: 'Jobs (Temporal workflow runs) started on this worker process, by kind.',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

/** `status`: completed, failed, cancelled, continued (continue-as-new: the job goes on in a new run). */
export const jobsEnded = new Counter({
  name: 'geoportal_jobs_ended_total',
  help: 'Jobs (Temporal workflow runs) ended on this worker process, by kind and status.',
  labelNames: ['kind', 'status'] as const,
  registers: [metricsRegistry],
});

export const jobDuration = new Histogram({
  name: 'geoportal_job_duration_seconds',
  help: 'Duration of a job run from its start to its end, by kind and status.',
  labelNames: ['kind', 'status'] as const,
  buckets: JOB_BUCKETS,
  registers: [metricsRegistry],
});

/** What a worker knows of the last good backup (the backups area reads it from its own records). */
export interface BackupState {
  lastAt?: Date;
  sizeBytes?: number;
}

/**
 * A gauge without a sample while `read` knows no value: prom-client's plain gauge would say 0,
 * which for a backup's age reads as "just now".
 */
class OptionalGauge extends Gauge {
  constructor(name: string, help: string, private readonly read: () => Promise<number | undefined>) {
    super({ name, help, registers: [metricsRegistry] });
  }

  override async get() {
    const [value, metric] = await Promise.all([this.read(), super.get()]);
    return { ...metric, values: value === undefined ? [] : [{ value, labels: {} }] };
  }
}

/**
 * The backup gauges: the last good backup's age and size, read at each scrape through `read`
 * (the backups area's own record of its runs). Registered once by the worker process. While no
 * good backup is known, or the read fails, the gauges have no sample, so the "backup too old"
 * alert's `absent()` fires instead of a stale or zero value passing for a fresh backup.
 */
export function registerBackupGauges(read: () => Promise<BackupState>): void {
  if (metricsRegistry.getSingleMetric('geoportal_backup_last_age_seconds')) return;
  const state = () => read().catch((): BackupState => ({}));
  new OptionalGauge('geoportal_backup_last_age_seconds', 'Seconds since the last good backup ended.', async () => {
    const { lastAt } = await state();
    return lastAt ? (Date.now() - lastAt.getTime()) / 1000 : undefined;
  });
  new OptionalGauge('geoportal_backup_last_size_bytes', 'Size of the last good backup, in bytes.', async () => (await state()).sizeBytes);
}

/**
 * The registry's text in the Prometheus exposition format 0.0.4, and its media type. In a web
 * process of a cluster (`WEB` > 1, api/server.ts) the text is every web process's, summed by the
 * primary (serveClusterScrapes): the port deals each connection to one of them, so a scrape of
 * one process alone would read a different process's counters from scrape to scrape.
 */
export async function scrape(): Promise<{ contentType: string; text: string }> {
  const text = cluster.isWorker ? await clusterScrape() : await metricsRegistry.metrics();
  return { contentType: metricsRegistry.contentType, text: text + (await gatewayScrape()) };
}

/**
 * The tile gateway's own metrics (native/tilegate; the map's tiles it answers never reach this
 * process), appended under their `tilegate_` names, with whether it answered.
 */
async function gatewayScrape(): Promise<string> {
  const url = config.tiles.gatewayMetricsUrl;
  if (!url) return '';
  const up = (v: 0 | 1) =>
    `# HELP geoportal_tilegate_up Whether the tile gateway answered this scrape.\n# TYPE geoportal_tilegate_up gauge\ngeoportal_tilegate_up ${v}\n`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(GATEWAY_SCRAPE_TIMEOUT_MS) });
    if (!res.ok) return up(0);
    return up(1) + (await res.text());
  } catch {
    return up(0);
  }
}
const GATEWAY_SCRAPE_TIMEOUT_MS = 2_000;

const SCRAPE_REQUEST = 'geoportal:metrics-scrape';
const SCRAPE_ANSWER = 'geoportal:metrics-scrape-answer';
/** Longer than prom-client's own 5 s wait for the web processes' registries. */
const CLUSTER_SCRAPE_TIMEOUT_MS = 7_000;

interface ScrapeMessage {
  type: string;
  id: number;
  text?: string;
  error?: string;
}

const waitingScrapes = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
let scrapeSeq = 0;

if (cluster.isWorker) {
  // prom-client answers the primary's requests for this registry (its listener comes with an instance).
  AggregatorRegistry.setRegistries(metricsRegistry);
  new AggregatorRegistry();
  process.on('message', (m: ScrapeMessage) => {
    if (m?.type !== SCRAPE_ANSWER) return;
    const waiting = waitingScrapes.get(m.id);
    waitingScrapes.delete(m.id);
    if (m.error !== undefined) waiting?.reject(new Error(m.error));
    else waiting?.resolve(m.text ?? '');
  });
}

function clusterScrape(): Promise<string> {
  const id = ++scrapeSeq;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      waitingScrapes.delete(id);
      reject(new Error('the primary did not answer the scrape'));
    }, CLUSTER_SCRAPE_TIMEOUT_MS);
    const settle = <T>(fn: (v: T) => void) => (v: T) => {
      clearTimeout(timer);
      fn(v);
    };
    waitingScrapes.set(id, { resolve: settle(resolve), reject: settle(reject) });
    process.send!({ type: SCRAPE_REQUEST, id } satisfies ScrapeMessage);
  });
}

/**
 * The primary of the web processes' cluster answers their scrapes with prom-client's
 * AggregatorRegistry: counters and histograms summed over the processes, each default metric as
 * prom-client aggregates it (the event-loop lag averaged, the version taken once).
 */
export function serveClusterScrapes(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: ScrapeMessage) => {
    if (m?.type !== SCRAPE_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: SCRAPE_ANSWER, id: m.id, text } satisfies ScrapeMessage),
      (err: Error) => worker.isConnected() && worker.send({ type: SCRAPE_ANSWER, id: m.id, error: err.message } satisfies ScrapeMessage),
    );
  });
}
