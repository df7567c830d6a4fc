/**
 * OGC API Features bench (issue 29; `npm run bench -- ogc`, or alone with the bench stack up:
 * `STACK_PROFILE=bench npx tsx scripts/bench/95-ogc.ts [--parcels N]`). Prints JSON lines:
 *   - `plain_ogr2ogr_*`: the reference, plain `ogr2ogr -f GPKG` from PostGIS (PG: driver) of the
 *     same UAT's parcels with the same columns (the OGC property SQL) and the store geometry;
 *   - `ogc_ogr2ogr_*`: `ogr2ogr -f GPKG` of the same parcels through /ogc with a personal access
 *     token, GDAL's OAPIF driver following the next links (PAGE_SIZE 10,000), as served (CRS84)
 *     and reprojected to EPSG:3844 by GDAL; goal >= 20,000 features/s;
 *   - `items_1000_*`: latency of items pages of 1,000 parcels at random positions of the UAT
 *     (sequential, through fetch, to the last byte of the body; the client's JSON.parse is not
 *     timed), in CRS84 and in EPSG:3844; goal p95 < 100 ms;
 *   - `items_1000_*_walk_*`: latency of the pages of a walk along the `next` links from a random
 *     position, as GDAL and QGIS read a layer (the route reads each next page ahead);
 *   - `items_1000_*_sql_*`: the same pages' statement timed inside PostgreSQL (EXPLAIN ANALYZE of
 *     the prepared statement: planning + execution, no transfer, no HTTP), the floor of the above.
 * `--before <url>` (or OGC_BENCH_BEFORE_URL): the base URL of another build of the web process on
 * the same database (e.g. the previous commit's `api/server.ts` started with PORT and PUBLIC_URL
 * of its own); every HTTP measure is then taken against it too, interleaved with ours, in lines
 * prefixed `before_`: a before/after comparison in one run on a shared machine.
 * A synthetic UAT (default 200,000 parcels, SIRUTA 991500) is written first (then VACUUM
 * ANALYZE) and removed afterwards.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { config } from '../../domain/config';
import { getPool } from '../../domain/db/pool';
import { pgConnectionEnv, pgDatasource } from '../../domain/exports/service';
import { viewerOf } from '../../domain/auth/rules';
import { CRS84, OGC_COLLECTIONS, STEREO70, propertiesFor } from '../../domain/ogc/rules';
import { pageStatement } from '../../domain/ogc/service';
import { createTestSessionRecord } from '../../test/helpers/session';
import { clearExportUat, seedExportUat } from '../../test/helpers/exportSeed';
import { tokenIdentityOf } from '../../api/auth/personalToken';
import { benchServices, jsonLine, note, percentiles, runBench } from './_shared';

const run = promisify(execFile);
const BENCH = 'ogc';
const SIRUTA = 991500;
const GOAL_FEATURES_PER_S = 20_000;
const GOAL_PAGE_P95_MS = 100;
const PAGE_SAMPLES = 60;
const WALK_PAGES = 40;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function gpkgCount(file: string, layer: string): Promise<number> {
  const { stdout } = await run('ogrinfo', ['-so', '-ro', file, layer]);
  return Number(/Feature Count: (\d+)/.exec(stdout)?.[1] ?? NaN);
}

async function main(): Promise<void> {
  const parcels = Number(arg('parcels') ?? 200_000);
  const base = config.app.publicUrl.replace(/\/+$/, '');
  const beforeBase = (arg('before') ?? process.env.OGC_BENCH_BEFORE_URL)?.replace(/\/+$/, '');
  // Ours last in each pair: a build measured right after the other meets the same warm caches.
  const builds: Array<[prefix: string, base: string]> = beforeBase ? [['before_', beforeBase], ['', base]] : [['', base]];
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-ogc-'));
  note(BENCH, `seeding ${parcels} parcels into SIRUTA ${SIRUTA}`);
  await seedExportUat(getPool(), { siruta: SIRUTA, name: 'Bench OGC', county: 'Cluj', parcels, noGeometry: 0, unenrichedEvery: 0 });
  await getPool().query('VACUUM ANALYZE gis_features');
  const session = await createTestSessionRecord({ email: 'bench-ogc@birou.ro', enrichmentScope: 'full' });
  const { token } = await benchServices().auth.createToken(tokenIdentityOf(session.data), { name: 'bench', expiresInDays: 1 });
  const env = { ...process.env, GDAL_HTTP_HEADERS: `Authorization: Bearer ${token}` };
  try {
    // Reference: plain ogr2ogr from PostGIS, the same rows, columns and geometry.
    // The token's viewer: a full one (enrichmentScope 'full', no basic panel).
    const collection = OGC_COLLECTIONS.find((c) => c.id === 'parcels')!;
    const viewer = viewerOf({ basicPanel: false, enrichmentScope: 'full' });
    const cols = propertiesFor(collection, viewer)
      .map((p) => `${p.expr} AS "${p.name}"`)
      .join(', ');
    const sql = `SELECT ${cols}, f.geom FROM gis_features f WHERE f.siruta = ${SIRUTA} AND f.layer_id = 'TERENURI_ACTIVE' ORDER BY f.siruta, f.object_id`;
    const refFile = path.join(tmp, 'plain.gpkg');
    const refMs = await timed(() =>
      run('ogr2ogr', ['-f', 'GPKG', refFile, pgDatasource(), '-sql', sql, '-nln', 'parcele'], {
        env: { ...process.env, ...pgConnectionEnv(config.db.url) },
        maxBuffer: 16 * 1024 * 1024,
      }),
    );
    const refCount = await gpkgCount(refFile, 'parcele');
    jsonLine(BENCH, 'plain_ogr2ogr_ms', refMs, 'ms (PG: driver to GPKG, reference)');
    jsonLine(BENCH, 'plain_ogr2ogr_features_per_s', refCount / (refMs / 1000), 'features/s');

    for (const [label, extra] of [
      ['crs84', [] as string[]],
      ['to_3844', ['-t_srs', 'EPSG:3844']],
    ] as const) {
      for (const [prefix, at] of builds) {
        const out = path.join(tmp, `ogc-${prefix}${label}.gpkg`);
        const src = `OAPIF:${at}/ogc/collections/parcels?siruta=${SIRUTA}`;
        const ms = await timed(() =>
          run('ogr2ogr', ['-f', 'GPKG', out, src, '-oo', 'PAGE_SIZE=10000', ...extra, '-nln', 'parcele', 'parcels'], { env, maxBuffer: 16 * 1024 * 1024 }),
        );
        const n = await gpkgCount(out, 'parcele');
        if (n !== refCount) throw new Error(`OGC copy ${prefix}${label} holds ${n} features, the store ${refCount}`);
        const m = `${prefix}ogc_ogr2ogr_${label}`;
        jsonLine(BENCH, `${m}_ms`, ms, 'ms (OAPIF driver to GPKG through /ogc, PAGE_SIZE=10000)');
        jsonLine(BENCH, `${m}_features_per_s`, n / (ms / 1000), 'features/s');
        jsonLine(BENCH, `${m}_vs_plain`, ms / refMs, 'ratio (time, ogc / plain)');
        if (!prefix) jsonLine(BENCH, `goal_ogc_ogr2ogr_${label}_over_20000_fps`, n / (ms / 1000) >= GOAL_FEATURES_PER_S, 'met?');
      }
    }

    // Items pages of 1,000 at random positions (a cursor just before a random object id); each
    // position is read from every build in turn, then its statement is timed inside PostgreSQL.
    const db = await getPool().connect();
    try {
      // As the web process runs it: a plan for the values at hand, no JIT (off in the store's config).
      await db.query('SET plan_cache_mode = force_custom_plan');
      for (const [label, crs] of [
        ['crs84', CRS84],
        ['epsg3844', STEREO70],
      ] as const) {
        const crsParam = crs === CRS84 ? '' : `&crs=${encodeURIComponent(crs.uri)}`;
        const samples = new Map(builds.map(([prefix]) => [prefix, [] as number[]]));
        const sql: number[] = [];
        const st = pageStatement({ collection, viewer, crs, limit: 1000, siruta: SIRUTA }, { key: { siruta: SIRUTA, objectId: '0' }, inclusive: false }, null);
        await db.query(`PREPARE bench_page_${label} AS ${st.text}`);
        for (let i = 0; i < PAGE_SAMPLES + 5; i++) {
          const from = Math.floor(Math.random() * (parcels - 1000));
          for (const [prefix, at] of builds) {
            const url = `${at}/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=1000${crsParam}&cursor=a${SIRUTA}_${from}`;
            let text = '';
            const ms = await timed(async () => {
              const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
              text = await res.text();
              if (res.status !== 200) throw new Error(`items answered ${res.status}: ${text.slice(0, 200)}`);
            });
            const returned = (JSON.parse(text) as { numberReturned: number }).numberReturned;
            if (returned !== 1000) throw new Error(`a page held ${returned} features`);
            if (i >= 5) samples.get(prefix)!.push(ms); // the first few warm the connection and the plan cache
          }
          const values = pageStatement({ collection, viewer, crs, limit: 1000, siruta: SIRUTA }, { key: { siruta: SIRUTA, objectId: String(from) }, inclusive: false }, null).values;
          const e = await db.query<{ 'QUERY PLAN': Array<{ 'Planning Time': number; 'Execution Time': number }> }>(
            `EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, FORMAT JSON) EXECUTE bench_page_${label}(${values.map((v) => db.escapeLiteral(String(v))).join(', ')})`,
          );
          const plan = e.rows[0]['QUERY PLAN'][0];
          if (i >= 5) sql.push(plan['Planning Time'] + plan['Execution Time']);
        }
        // A walk, as GDAL and QGIS read a layer: from a random position, each page's `next` link
        // asked once the previous page is read and parsed (the parse not timed), so the route's
        // read-ahead of the next page is what the client meets.
        const walks = new Map(builds.map(([prefix]) => [prefix, [] as number[]]));
        for (const [prefix, at] of builds) {
          let url: string | undefined = `${at}/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=1000${crsParam}&cursor=a${SIRUTA}_${Math.floor(Math.random() * Math.max(0, parcels - 1000 * (WALK_PAGES + 2)))}`;
          for (let i = 0; i < WALK_PAGES + 1 && url; i++) {
            let text = '';
            const ms = await timed(async () => {
              const res = await fetch(url!, { headers: { authorization: `Bearer ${token}` } });
              text = await res.text();
              if (res.status !== 200) throw new Error(`items answered ${res.status}: ${text.slice(0, 200)}`);
            });
            const page = JSON.parse(text) as { links: Array<{ rel: string; href: string }> };
            url = page.links.find((l) => l.rel === 'next')?.href;
            if (i >= 1) walks.get(prefix)!.push(ms); // the first page of a walk has nothing read ahead
          }
        }
        for (const [prefix] of builds) {
          const w = percentiles(walks.get(prefix)!);
          jsonLine(BENCH, `${prefix}items_1000_${label}_walk_p50_ms`, w.p50, 'ms (following next links)');
          jsonLine(BENCH, `${prefix}items_1000_${label}_walk_p95_ms`, w.p95, 'ms');
        }
        for (const [prefix] of builds) {
          const p = percentiles(samples.get(prefix)!);
          jsonLine(BENCH, `${prefix}items_1000_${label}_p50_ms`, p.p50, 'ms');
          jsonLine(BENCH, `${prefix}items_1000_${label}_p95_ms`, p.p95, 'ms');
          if (!prefix) jsonLine(BENCH, `goal_items_1000_${label}_p95_under_100ms`, p.p95 < GOAL_PAGE_P95_MS, 'met?');
        }
        const f = percentiles(sql);
        jsonLine(BENCH, `items_1000_${label}_sql_p50_ms`, f.p50, 'ms (the page statement inside PostgreSQL)');
        jsonLine(BENCH, `items_1000_${label}_sql_p95_ms`, f.p95, 'ms');
      }
    } finally {
      db.release();
    }
  } finally {
    await getPool().query(`DELETE FROM personal_access_tokens WHERE user_id = $1`, [session.data.user.id]);
    await session.end();
    await clearExportUat(getPool(), SIRUTA);
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

runBench(main);
