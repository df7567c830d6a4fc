/**
 * Enrichment bench (issue 6 item 8; run by `npm run bench -- enrichment`, or alone with
 * STACK_PROFILE=bench against a running bench stack: `npx tsx scripts/bench/30-enrichment.ts
 * [--parcels N] [--samples N]`). Prints JSON lines {"bench":"enrichment","metric",…}.
 *
 * 1. Throughput. The `bench` simulator holds one UAT only (Cluj-Napoca, 200,000 parcels), and a
 *    forced enrichment of all of it would take hours at the portal's rate limit. So the real
 *    `enrichParcels` workflow (force: true) runs on the bench UAT through the bench stack's
 *    workers until it has enriched a demo-sized set (--parcels, default 1000: a demo UAT holds
 *    ~400 parcels on average, the biggest a few thousand), then it is cancelled. Parcels/s is
 *    measured from the store: parcels whose enriched_at is after the start, over the time from
 *    the start to the last of them. Portal requests are counted by the simulator
 *    (`/__sim/requests`, the details and ownership routes) and by the workflow's own totals.
 * 2. Owner search, `POST /api/landreg/search-owner` over the bench UAT through HTTP with a real
 *    session (full scope): the local path with names of owners of enriched parcels (the store
 *    holds owners only for enriched parcels), and the portal fallback separately with names of
 *    owners of parcels not enriched, checked to have no local hit. Each sample is classified by
 *    the answer's own `source`.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { config } from '../../domain/config';
import { getPool } from '../../domain/db/pool';
import { storeOn } from '../../domain/db/store';
import { nameTokens, parseOwners } from '../../domain/enrichment/rules';
import { processServices } from '../../temporal/services';
import { readJob, start } from '../../temporal/jobs';
import { createTestSessionRecord } from '../../test/helpers/session';
import type { ProgressState } from '../../temporal/common/progress';
import type { EnrichDetail } from '../../workflows/enrichParcels';
import { BENCH_SIRUTA, ensureBenchUatSynced, jsonLine, note, percentiles, runBench } from './_shared';

const BENCH = 'enrichment';
const emit = (metric: string, value: number | string | boolean, unit: string) => jsonLine(BENCH, metric, value, unit);
const say = (msg: string) => note(BENCH, msg);

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const TARGET_PARCELS = arg('parcels', 1000);
const OWNER_SAMPLES = arg('samples', 100);
const FALLBACK_SAMPLES = Math.max(5, Math.round(OWNER_SAMPLES / 4));
const PORTAL_ROUTES = ['route:GET /eterra/api/immovable/details', 'route:GET /eterra/api/immovable/ownership'];

async function simCounts(): Promise<Record<string, number>> {
  const res = await fetch(`${config.landreg.baseUrl}/__sim/requests`);
  return ((await res.json()) as { counts: Record<string, number> }).counts;
}

const sumRoutes = (c: Record<string, number>, routes: readonly string[]) => routes.reduce((s, r) => s + (c[r] ?? 0), 0);
const totalRequests = (c: Record<string, number>) => Object.entries(c).filter(([k]) => k.startsWith('route:')).reduce((s, [, v]) => s + v, 0);

async function benchThroughput(): Promise<void> {
  const db = getPool();
  const before = await simCounts();
  const t0 = new Date();
  const { jobId: workflowId, handle } = await start('enrich', { siruta: BENCH_SIRUTA, force: true });
  say(`started ${workflowId} (force) on the bench UAT; stopping it after ${TARGET_PARCELS} parcels`);
  let progress: ProgressState<EnrichDetail> | undefined;
  let lastSaid = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const job = await readJob<EnrichDetail>(workflowId);
    progress = job?.progress ?? progress;
    if (progress && (progress.current >= TARGET_PARCELS || progress.status === 'done')) break;
    if (job && job.status !== 'running') throw new Error(`${workflowId} ended ${job.status} after ${progress?.current ?? 0} parcels: ${job.error ?? ''}`);
    if (progress && progress.current - lastSaid >= 200) {
      lastSaid = progress.current;
      say(`${progress.current} parcels enriched, ${progress.detail?.portalCalls ?? 0} portal calls`);
    }
  }
  const wallS = (Date.now() - t0.getTime()) / 1000;
  await handle.cancel();
  await handle.result().catch((err: unknown) => {
    if (!(err instanceof WorkflowFailedError)) throw err;
  });
  const after = await simCounts();
  const r = (
    await db.query<{ n: number; span_s: number }>(
      `SELECT count(*)::int AS n, COALESCE(extract(epoch FROM max(enriched_at) - $3::timestamptz), 0)::float8 AS span_s
         FROM gis_features WHERE siruta = $1 AND layer_id = $2 AND enriched_at >= $3`,
      [BENCH_SIRUTA, 'TERENURI_ACTIVE', t0],
    )
  ).rows[0];
  const portal = sumRoutes(after, PORTAL_ROUTES) - sumRoutes(before, PORTAL_ROUTES);
  const all = totalRequests(after) - totalRequests(before);
  emit('uat_parcels_queued', progress?.total ?? 0, 'parcels');
  emit('parcels_enriched', r.n, 'parcels');
  emit('parcels_per_s', r.n / r.span_s, 'parcels/s');
  emit('wall_seconds', wallS, 's');
  emit('workflow_portal_calls', progress?.detail?.portalCalls ?? 0, 'requests');
  emit('portal_requests', portal, 'requests');
  emit('portal_requests_all_routes', all, 'requests');
  emit('portal_requests_per_parcel', portal / Math.max(1, r.n), 'requests');
  emit('portal_requests_per_s', portal / r.span_s, 'requests/s');
  emit('portal_rate_limit', config.landreg.requestsPerSecond, 'requests/s');
}

interface OwnerSample {
  name: string;
}

/** Owner names of the UAT's enriched parcels, as a user would type them (lower case, no accents). */
async function localNames(n: number): Promise<OwnerSample[]> {
  const r = await getPool().query<{ p: string | null }>(
    `SELECT enrichment->>'PROPRIETARI' AS p FROM gis_features
      WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND enrichment IS NOT NULL AND enrichment->>'PROPRIETARI' IS NOT NULL
      ORDER BY md5(id::text) LIMIT $2`,
    [BENCH_SIRUTA, n * 2],
  );
  const names = new Set<string>();
  for (const row of r.rows) {
    const owner = parseOwners(row.p)[0];
    if (owner) names.add(nameTokens(owner.name).join(' '));
    if (names.size >= n) break;
  }
  return [...names].map((name) => ({ name }));
}

/**
 * Names the store cannot answer: owners (from the portal's ownership trees) of parcels that are
 * not enriched, kept only when the local search finds nothing for them.
 */
async function fallbackNames(n: number): Promise<OwnerSample[]> {
  const db = getPool();
  const r = await db.query<{ pk: string }>(
    `SELECT attributes->>'IMMOVABLE_ID' AS pk FROM gis_features
      WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND enrichment IS NULL AND attributes->>'IMMOVABLE_ID' IS NOT NULL
      ORDER BY md5(id::text) LIMIT $2`,
    [BENCH_SIRUTA, n * 4],
  );
  const { enrichment } = processServices(storeOn(db), { mail: null });
  const out: OwnerSample[] = [];
  for (const row of r.rows) {
    const nodes = await enrichment.ownershipTree(Number(row.pk));
    for (const node of nodes) {
      const name = node.person?.name;
      if (!name) continue;
      const tokens = nameTokens(name);
      if (tokens.join('').length < 3 || out.some((s) => s.name === tokens.join(' '))) continue;
      if ((await enrichment.searchOwnersLocal(BENCH_SIRUTA, tokens, 1)).length > 0) continue;
      out.push({ name: tokens.join(' ') });
      break;
    }
    if (out.length >= n) break;
  }
  return out;
}

async function benchOwnerSearch(): Promise<void> {
  const session = await createTestSessionRecord({ email: 'bench-enrichment@birou.ro', enrichmentScope: 'full' });
  try {
    const url = `${config.app.publicUrl}/api/landreg/search-owner`;
    const search = async (name: string) => {
      const t = performance.now();
      const res = await fetch(url, {
        method: 'POST',
        headers: { cookie: session.cookie, origin: new URL(url).origin, 'content-type': 'application/json' },
        body: JSON.stringify({ name, siruta: BENCH_SIRUTA }),
      });
      const body = (await res.json()) as { source?: string; results?: unknown[]; error?: string };
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`search-owner answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      return { ms, source: body.source ?? 'none', hits: body.results?.length ?? 0 };
    };
    const local = await localNames(OWNER_SAMPLES);
    const fallback = await fallbackNames(FALLBACK_SAMPLES);
    say(`owner search: ${local.length} names of enriched owners, ${fallback.length} names only the portal knows`);
    if (local.length) await search(local[0].name); // warm-up (connection, prepared plans)
    const bySource = new Map<string, number[]>();
    let hits = 0;
    for (const s of [...local, ...fallback]) {
      const r = await search(s.name);
      hits += r.hits;
      const key = r.source === 'local' ? 'local' : 'online'; // 'online' and 'none' both asked the portal
      bySource.set(key, [...(bySource.get(key) ?? []), r.ms]);
    }
    for (const [source, samples] of bySource) {
      const p = percentiles(samples);
      emit(`owner_search_${source}_samples`, p.n, 'requests');
      emit(`owner_search_${source}_p50_ms`, p.p50, 'ms');
      emit(`owner_search_${source}_p95_ms`, p.p95, 'ms');
    }
    emit('owner_search_hits_per_query', hits / Math.max(1, local.length + fallback.length), 'parcels');
    const enriched = (
      await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE' AND enrichment IS NOT NULL`, [BENCH_SIRUTA])
    ).rows[0].n;
    emit('owner_search_enriched_parcels_in_uat', enriched, 'parcels');
  } finally {
    await session.end();
  }
}

async function main(): Promise<void> {
  await ensureBenchUatSynced(say);
  await benchThroughput();
  await benchOwnerSearch();
}

runBench(main);
