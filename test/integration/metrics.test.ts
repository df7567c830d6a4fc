/**
 * Metrics an office can watch (issue 41, item 4; docs/operations.md "Watching it"): the web
 * process's `/metrics` (an app of this file, on the stack's database, simulators and AI
 * simulator) and a worker's (the stack's worker process, on WORKER_METRICS_PORT) are scraped
 * before and after each event, and each family is seen to move with its event: a request under
 * its route template, a 429 of the rate limiter and of the heavy-work slots, portal and AI calls
 * by outcome, a tile missed then hit, a pool's waiting query, the event loop's lag, a job run on
 * the worker and the Temporal SDK's own metrics. The access rule of CONTRACT.md section 6 is
 * checked on the web process (loopback, admin, bearer, non-admin, anonymous from elsewhere through
 * a loopback proxy's X-Forwarded-For) and on the worker's rule itself. promtool (built from the
 * Go module proxy by scripts/bootstrap) lints both scrapes, checks the alert rules and runs their
 * unit tests (docs/prometheus/alerts.test.yml); the Grafana dashboard reads only exported series.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import type { TestSession } from '../helpers/session';
import type { LandregSimulator } from '../../simulators/landreg/server';

process.env.METRICS_TOKEN = 'metrics-test-token-0123456789abcdef0123';
// A small per-minute limit, so one user's burst reaches it in a few dozen requests.
process.env.RATE_LIMIT_PER_MINUTE = '25';

const { config, projectRoot } = await import('../../domain/config');
const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const { createPool } = await import('../../domain/db/pool');
const { registerBackupGauges, trackPools } = await import('../../domain/metrics');
const { heavyWork } = await import('../../api/http/rateLimit');
const { heavyReadSlots } = await import('../../domain/db/heavyRead');
const { LandregClient } = await import('../../domain/landreg/client');
const { startLandregSimulator } = await import('../../simulators/landreg/server');
const { clearTileCache } = await import('../../domain/tiles/mvt');
const { workerMetricsAllowed } = await import('../../workers/metrics');
const { getTemporalClient, closeTemporalClient } = await import('../../temporal/client');
const { listenApp } = await import('../helpers/appServer');
const { until } = await import('../helpers/wait');
const { applyKeepAlive } = await import('../../domain/net/keepAlive');
const { createTestSessionRecord } = await import('../helpers/session');

const PROMTOOL_VERSION = 'v0.316.0';
const promtool = path.join(config.toolsDir, `promtool-${PROMTOOL_VERSION}`, 'promtool');
/** A caller elsewhere, as a proxy on loopback forwards it (the app trusts loopback proxies). */
const ELSEWHERE = { 'x-forwarded-for': '203.0.113.7' };

const store = createStore(config.db.url, { max: 4 });
let server: http.Server;
let base: string;
let admin: TestSession;
let viewer: TestSession;
let flooder: TestSession;
let sim: LandregSimulator | undefined;

beforeAll(async () => {
  ({ server, base } = await listenApp(createApp({ store })));
  applyKeepAlive(server); // as api/server.ts: a scrape never lands on a socket the server is closing
  admin = await createTestSessionRecord({ email: 'metrics-admin@birou.ro', flags: { isAdmin: true }, db: store.pool });
  viewer = await createTestSessionRecord({ email: 'metrics-user@birou.ro', flags: { isAdmin: false }, db: store.pool });
  flooder = await createTestSessionRecord({ email: 'metrics-flood@birou.ro', flags: { isAdmin: false }, db: store.pool });
  sim = await startLandregSimulator({ port: 0 });
});

afterAll(async () => {
  await Promise.all([admin, viewer, flooder].map((s) => s?.end()));
  await new Promise((r) => server?.close(r));
  await sim?.close();
  await closeTemporalClient();
  await store.close();
});

/** One scrape of the web app, as a loopback Prometheus does. */
async function webScrape(): Promise<string> {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

const workerUrl = () => `http://127.0.0.1:${config.workers.metricsBasePort}/metrics`;

async function workerScrape(): Promise<string> {
  const res = await fetch(workerUrl());
  expect(res.status).toBe(200);
  return res.text();
}

/** The value of one series (name and exact labels, in the registry's order), 0 when absent. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/**
 * promtool's lint of a scrape, less its complaints about prom-client's own default gauges
 * (`nodejs_active_handles_total` and its two siblings end in `_total`; prom-client names them so).
 */
function lintScrape(text: string): string[] {
  const { out } = runPromtool(['check', 'metrics'], text);
  return out.split('\n').filter((l) => l.trim() !== '' && !/^nodejs_active_(handles|requests|resources)_total /.test(l));
}

/** Runs promtool with `args`, `input` on stdin; its exit status and output. */
function runPromtool(args: string[], input?: string): { status: number; out: string } {
  try {
    const out = execFileSync(promtool, args, { input, cwd: projectRoot, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    return { status: 0, out };
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string };
    return { status: e.status ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('GET /metrics of the web process: who may read it', () => {
  test('a loopback caller gets the Prometheus text format 0.0.4', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    const [type, ...params] = (res.headers.get('content-type') ?? '').split(/;\s*/);
    expect([type, params.sort()]).toEqual(['text/plain', ['charset=utf-8', 'version=0.0.4']]);
    expect(await res.text()).toMatch(/^# HELP geoportal_http_requests_total /m);
  });

  test('from elsewhere: anonymous 401, a non-admin session 403, an admin session or the bearer token 200, a wrong token 401', async () => {
    const anonymous = await fetch(`${base}/metrics`, { headers: ELSEWHERE });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'unauthorized' });

    const user = await fetch(`${base}/metrics`, { headers: { ...ELSEWHERE, cookie: viewer.cookie } });
    expect(user.status).toBe(403);
    expect(await user.json()).toMatchObject({ error: 'forbidden' });

    const adminRes = await fetch(`${base}/metrics`, { headers: { ...ELSEWHERE, cookie: admin.cookie } });
    expect(adminRes.status).toBe(200);
    expect(await adminRes.text()).toContain('geoportal_http_requests_total');

    const bearer = await fetch(`${base}/metrics`, { headers: { ...ELSEWHERE, authorization: `Bearer ${process.env.METRICS_TOKEN}` } });
    expect(bearer.status).toBe(200);

    const wrong = await fetch(`${base}/metrics`, { headers: { ...ELSEWHERE, authorization: 'Bearer not-the-token' } });
    expect(wrong.status).toBe(401);
  });

  test("a worker's endpoint: loopback or the bearer token, nobody else", () => {
    const req = (remoteAddress: string, authorization?: string) =>
      ({ socket: { remoteAddress }, headers: authorization ? { authorization } : {} }) as unknown as http.IncomingMessage;
    expect(workerMetricsAllowed(req('127.0.0.1'))).toBe(true);
    expect(workerMetricsAllowed(req('::1'))).toBe(true);
    expect(workerMetricsAllowed(req('203.0.113.7'))).toBe(false);
    expect(workerMetricsAllowed(req('203.0.113.7', 'Bearer not-the-token'))).toBe(false);
    expect(workerMetricsAllowed(req('203.0.113.7', `Bearer ${process.env.METRICS_TOKEN}`))).toBe(true);
  });
});

describe('each family of the web process moves with its event', () => {
  test('a request: its route template, method and status, counted and timed; never the raw path', async () => {
    const before = await webScrape();
    const res = await fetch(`${base}/tiles/gis_uats_z12/12/2301/1451`, { headers: { cookie: viewer.cookie } });
    expect(res.ok).toBe(true); // 200, or 204 for a tile without features
    await res.arrayBuffer();
    const after = await webScrape();
    const series = `geoportal_http_requests_total{route="/tiles/:source/:z/:x/:y",method="GET",status="${res.status}"}`;
    const hist = `geoportal_http_request_duration_seconds_count{route="/tiles/:source/:z/:x/:y",method="GET",status="${res.status}"}`;
    expect(value(after, series) - value(before, series)).toBe(1);
    expect(value(after, hist) - value(before, hist)).toBe(1);
    expect(after).not.toContain('/tiles/gis_uats_z12/12/2301/1451');

    // Refused without a session: answered by the error mount of /tiles, counted under the same template.
    const refused = 'geoportal_http_requests_total{route="/tiles/:source/:z/:x/:y",method="GET",status="401"}';
    expect((await fetch(`${base}/tiles/gis_uats_z12/12/2301/1451`)).status).toBe(401);
    expect(value(await webScrape(), refused) - value(after, refused)).toBe(1);
  });

  test('a request its client abandons before any answer is counted as 499, not as served (200) nor failed (500)', async () => {
    const series = (status: number) => `geoportal_http_requests_total{route="/api/landreg/features",method="GET",status="${status}"}`;
    const before = await webScrape();
    // Every slot of the large reads taken, so the request waits for its turn until its client leaves.
    const held = await Promise.all(Array.from({ length: config.limits.heavyRead.global }, (_, i) => heavyReadSlots.acquire(`u:metrics-other-${i}`)));
    try {
      const gone = new AbortController();
      const asked = fetch(`${base}/api/landreg/features?limit=1`, { headers: { cookie: viewer.cookie }, signal: gone.signal }).catch((e: unknown) => e);
      await until('the read to wait for its turn', async () => heavyReadSlots.queued === 1, 10_000, 20);
      gone.abort();
      expect(await asked).toMatchObject({ name: 'AbortError' });
      await until('the abandoned request to be counted', async () => value(await webScrape(), series(499)) - value(before, series(499)) === 1, 10_000, 50);
    } finally {
      held.forEach((release) => release());
    }
    const after = await webScrape();
    expect([200, 500].map((s) => value(after, series(s)) - value(before, series(s)))).toEqual([0, 0]);
  });

  test('a tile asked twice: a miss, then a hit', async () => {
    const miss = 'geoportal_tile_cache_requests_total{result="miss"}';
    const hit = 'geoportal_tile_cache_requests_total{result="hit"}';
    const ask = async () => {
      const res = await fetch(`${base}/tiles/gis_uats_z12/12/2302/1452`, { headers: { cookie: viewer.cookie } });
      await res.arrayBuffer();
      return res.headers.get('etag');
    };
    // Other test files share the database and bump every source's version when they sync; a bump
    // between the two requests (the ETag names the version) makes the second a miss too, so the
    // pair is asked again.
    for (let attempt = 1; ; attempt++) {
      clearTileCache();
      const s0 = await webScrape();
      const first = await ask();
      const s1 = await webScrape();
      const second = await ask();
      const s2 = await webScrape();
      if (first !== second && attempt < 5) continue;
      expect([value(s1, miss) - value(s0, miss), value(s1, hit) - value(s0, hit)]).toEqual([1, 0]);
      expect([value(s2, miss) - value(s1, miss), value(s2, hit) - value(s1, hit)]).toEqual([0, 1]);
      expect(value(s2, 'geoportal_tile_cache_entries')).toBeGreaterThanOrEqual(1);
      break;
    }
  });

  test("the per-minute limit's 429, by cap", async () => {
    const series = 'geoportal_rate_limited_total{cap="user"}';
    const before = await webScrape();
    let refused = 0;
    for (let i = 0; i < 26; i++) {
      const res = await fetch(`${base}/api/auth/session`, { headers: { cookie: flooder.cookie } });
      await res.arrayBuffer();
      if (res.status === 429) refused++;
    }
    expect(refused).toBe(1);
    expect(value(await webScrape(), series) - value(before, series)).toBe(1);
  });

  test('heavy work: in flight while held, refused past the per-user cap (429), by kind', async () => {
    const inFlight = 'geoportal_heavy_work_in_flight{kind="ai"}';
    const refused = 'geoportal_heavy_work_refused_total{kind="ai",cap="user"}';
    const before = await webScrape();
    // The viewer's questions already in flight, up to the cap: the next one is refused.
    const held = [];
    for (let i = 0; i < config.limits.ai.perUser; i++) held.push(await heavyWork.ai.acquire(`u:${viewer.data.user.id}`));
    try {
      const during = await webScrape();
      expect(value(during, inFlight)).toBe(config.limits.ai.perUser);
      const res = await fetch(`${base}/api/ai-chat`, {
        method: 'POST',
        headers: { cookie: viewer.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Ce acte trebuie pentru o autorizație de construire?' }),
      });
      expect(res.status).toBe(429);
      expect(await res.json()).toMatchObject({ error: 'rate_limited' });
    } finally {
      held.forEach((release) => release());
    }
    const after = await webScrape();
    expect(value(after, refused) - value(before, refused)).toBe(1);
    expect(value(after, inFlight)).toBe(0);
  });

  test('outside calls by service and outcome: the AI provider answers, the portal answers, then cannot be reached', async () => {
    const aiOk = 'geoportal_outside_calls_total{service="ai",outcome="ok"}';
    const portalOk = 'geoportal_outside_calls_total{service="landreg",outcome="ok"}';
    const portalDown = 'geoportal_outside_calls_total{service="landreg",outcome="unavailable"}';
    const s0 = await webScrape();

    const chat = await fetch(`${base}/api/ai-chat`, {
      method: 'POST',
      headers: { cookie: viewer.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Salut' }),
    });
    expect(chat.status).toBe(200);
    const s1 = await webScrape();
    expect(value(s1, aiOk) - value(s0, aiOk)).toBe(1);

    const portal = new LandregClient({ db: store.pool, baseUrl: sim!.url });
    await portal.get('/adm/nomen/uats/42708');
    const s2 = await webScrape();
    expect(value(s2, portalOk) - value(s1, portalOk)).toBeGreaterThanOrEqual(1);

    await sim!.close();
    sim = undefined;
    await expect(portal.get('/adm/nomen/uats/42708')).rejects.toThrow();
    const s3 = await webScrape();
    expect(value(s3, portalDown) - value(s2, portalDown)).toBe(1);
    expect(value(s3, portalOk)).toBe(value(s2, portalOk));
  });

  test("a pool's waiting query shows while it waits", async () => {
    const tiny = createPool(config.db.url, 1);
    try {
      trackPools({ 'metrics-test': tiny });
      const holder = await tiny.connect();
      const waiting = tiny.query('SELECT 1');
      const during = await webScrape();
      expect(value(during, 'geoportal_db_pool_waiting{pool="metrics-test"}')).toBe(1);
      expect(value(during, 'geoportal_db_pool_connections{pool="metrics-test",state="total"}')).toBe(1);
      holder.release();
      await waiting;
      expect(value(await webScrape(), 'geoportal_db_pool_waiting{pool="metrics-test"}')).toBe(0);
    } finally {
      await tiny.end();
    }
  });

  test("the event loop's lag and the process's memory", async () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await webScrape(); // the delay histogram starts afresh after each scrape
    await sleep(30); // its sampling timer ticks again before the stall
    const end = Date.now() + 300;
    while (Date.now() < end) {
      // The event loop blocked for 300 ms, as a long synchronous step would.
    }
    await sleep(30);
    const after = await webScrape();
    expect(value(after, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.25);
    expect(value(after, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
  });

  test("the last backup's age and size, as the backups area's reader tells them", async () => {
    let last: { lastAt?: Date; sizeBytes?: number } = {};
    registerBackupGauges(async () => last);
    const none = await webScrape();
    expect(none).not.toMatch(/^geoportal_backup_last_age_seconds /m);
    last = { lastAt: new Date(Date.now() - 2 * 3600_000), sizeBytes: 123_456_789 };
    const after = await webScrape();
    expect(value(after, 'geoportal_backup_last_age_seconds')).toBeGreaterThanOrEqual(7200);
    expect(value(after, 'geoportal_backup_last_age_seconds')).toBeLessThan(7260);
    expect(value(after, 'geoportal_backup_last_size_bytes')).toBe(123_456_789);
  });

  test('promtool finds nothing to say of the scrape', async () => {
    expect(lintScrape(await webScrape())).toEqual([]);
  });
});

describe("a worker's metrics (the stack's worker process)", () => {
  test('a job run counts as started and ended, with its duration; the SDK reports its own', async () => {
    const kind = 'sessionHousekeeping';
    const started = `geoportal_jobs_started_total{kind="${kind}"}`;
    const ended = `geoportal_jobs_ended_total{kind="${kind}",status="completed"}`;
    const took = `geoportal_job_duration_seconds_count{kind="${kind}",status="completed"}`;
    const before = await workerScrape();
    const client = await getTemporalClient();
    await client.workflow.execute(kind, { taskQueue: 'store', workflowId: `metrics-test-${Date.now()}`, args: [] });
    // The worker counts the end once the run's last task is done, not before the client hears of it.
    const after = await until('the job counted as ended', async () => {
      const text = await workerScrape();
      return value(text, ended) > value(before, ended) ? text : undefined;
    }, 10_000, 100);
    expect(value(after, started) - value(before, started)).toBeGreaterThanOrEqual(1);
    expect(value(after, took) - value(before, took)).toBeGreaterThanOrEqual(1);
    // The Temporal SDK's own, through its runtime telemetry, in the same scrape.
    expect(after).toMatch(/^temporal_workflow_completed_total\{/m);
    expect(after).toMatch(/^temporal_workflow_task_execution_latency_seconds_bucket\{/m);
    // And the process's own, as in the web process.
    expect(after).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
    expect(lintScrape(after)).toEqual([]);
  });
});

describe('docs: alert rules and the dashboard', () => {
  test('promtool checks the alert rules and their unit tests pass (each rule fires when it should, and not before)', () => {
    const check = runPromtool(['check', 'rules', 'docs/prometheus/alerts.yml']);
    // Every rule of the file, however many it holds.
    const rules = (fs.readFileSync(path.join(projectRoot, 'docs/prometheus/alerts.yml'), 'utf8').match(/^\s*- alert: /gm) ?? []).length;
    expect(rules).toBeGreaterThan(0);
    expect(check.out).toContain(`SUCCESS: ${rules} rules found`);
    expect(check.status).toBe(0);
    const unit = runPromtool(['test', 'rules', 'docs/prometheus/alerts.test.yml']);
    expect(unit.out).toContain('SUCCESS');
    expect(unit.status).toBe(0);
  });

  test('every series the Grafana dashboard reads is one a web or worker scrape carries', async () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(projectRoot, 'docs/grafana/geoportal.json'), 'utf8')) as {
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    };
    const scraped = `${await webScrape()}\n${await workerScrape()}`;
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThanOrEqual(12);
    const names = [...new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:geoportal|nodejs|process|temporal)_[a-z0-9_]+)/g)].map((m) => m[1])))];
    expect(names.filter((n) => !new RegExp(`^${n}[ {]`, 'm').test(scraped))).toEqual([]);
  });
});
