/**
 * OGC API Features bench (issue 29; `npm run bench -- ogc`, or alone with the bench stack up:
 * `STACK_PROFILE=bench npx tsx scripts/bench/95-ogc.ts [--parcels N]`). Prints JSON lines:
 *   - `plain_ogr2ogr_*`: the reference, plain `ogr2ogr -f GPKG` from PostGIS (PG: driver) of the
 *     same UAT's parcels with the same columns (the OGC property SQL) and the store geometry;
 *   - `ogc_ogr2ogr_*`: `ogr2ogr -f GPKG` of the same parcels through /ogc with a personal access
 *     token, GDAL's OAPIF driver following the next links (PAGE_SIZE 10,000), as served (CRS84)
 *     and reprojected to EPSG:3844 by GDAL; goal >= 20,000 features/s;
 *   - `items_1000_*`: latency of items pages of 1,000 parcels at random positions of the UAT
 *     (sequential, through fetch, body read to the end), in CRS84 and in EPSG:3844; goal p95 < 100 ms.
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
import { closePool, getPool } from '../../domain/db/pool';
import { pgConnectionEnv, pgDatasource } from '../../domain/exports/gdal';
import { createToken } from '../../domain/auth/personalTokens';
import { viewerOf } from '../../domain/auth/viewer';
import { OGC_COLLECTIONS, propertiesFor } from '../../domain/ogc/collections';
import { createTestSessionRecord } from '../../test/helpers/session';
import { clearExportUat, seedExportUat } from '../../test/helpers/exportSeed';
import { tokenIdentityOf } from '../../api/auth/personalToken';
import { jsonLine, note, percentiles } from './_shared';

const run = promisify(execFile);
const BENCH = 'ogc';
const SIRUTA = 991500;
const GOAL_FEATURES_PER_S = 20_000;
const GOAL_PAGE_P95_MS = 100;
const PAGE_SAMPLES = 60;

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
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-ogc-'));
  note(BENCH, `seeding ${parcels} parcels into SIRUTA ${SIRUTA}`);
  await seedExportUat(getPool(), { siruta: SIRUTA, name: 'Bench OGC', county: 'Cluj', parcels, noGeometry: 0, unenrichedEvery: 0 });
  await getPool().query('VACUUM ANALYZE gis_features');
  const session = await createTestSessionRecord({ email: 'bench-ogc@birou.ro', enrichmentScope: 'full' });
  const { token } = await createToken(tokenIdentityOf(session.data), { name: 'bench', expiresInDays: 1 });
  const env = { ...process.env, GDAL_HTTP_HEADERS: `Authorization: Bearer ${token}` };
  try {
    // Reference: plain ogr2ogr from PostGIS, the same rows, columns and geometry.
    const parcelsCollection = OGC_COLLECTIONS.find((c) => c.id === 'parcels')!;
    const cols = propertiesFor(parcelsCollection, viewerOf({ basicPanel: false, enrichmentScope: 'full' }))
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

    const src = `OAPIF:${base}/ogc/collections/parcels?siruta=${SIRUTA}`;
    for (const [label, extra] of [
      ['crs84', [] as string[]],
      ['to_3844', ['-t_srs', 'EPSG:3844']],
    ] as const) {
      const out = path.join(tmp, `ogc-${label}.gpkg`);
      const ms = await timed(() =>
        run('ogr2ogr', ['-f', 'GPKG', out, src, '-oo', 'PAGE_SIZE=10000', ...extra, '-nln', 'parcele', 'parcels'], { env, maxBuffer: 16 * 1024 * 1024 }),
      );
      const n = await gpkgCount(out, 'parcele');
      if (n !== refCount) throw new Error(`OGC copy ${label} holds ${n} features, the store ${refCount}`);
      jsonLine(BENCH, `ogc_ogr2ogr_${label}_ms`, ms, 'ms (OAPIF driver to GPKG through /ogc, PAGE_SIZE=10000)');
      jsonLine(BENCH, `ogc_ogr2ogr_${label}_features_per_s`, n / (ms / 1000), 'features/s');
      jsonLine(BENCH, `ogc_ogr2ogr_${label}_vs_plain`, ms / refMs, 'ratio (time, ogc / plain)');
      jsonLine(BENCH, `goal_ogc_ogr2ogr_${label}_over_20000_fps`, n / (ms / 1000) >= GOAL_FEATURES_PER_S, 'met?');
    }

    // Items pages of 1,000 at random positions (a cursor just before a random object id).
    for (const [label, crs] of [
      ['crs84', ''],
      ['epsg3844', `&crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/0/3844')}`],
    ] as const) {
      const samples: number[] = [];
      for (let i = 0; i < PAGE_SAMPLES + 5; i++) {
        const from = Math.floor(Math.random() * (parcels - 1000));
        const url = `${base}/ogc/collections/parcels/items?siruta=${SIRUTA}&limit=1000${crs}&cursor=a${SIRUTA}_${from}`;
        let returned = 0;
        const ms = await timed(async () => {
          const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
          const text = await res.text();
          if (res.status !== 200) throw new Error(`items answered ${res.status}: ${text.slice(0, 200)}`);
          returned = (JSON.parse(text) as { numberReturned: number }).numberReturned;
        });
        if (returned !== 1000) throw new Error(`a page held ${returned} features`);
        if (i >= 5) samples.push(ms); // the first few warm the connection and the plan cache
      }
      const p = percentiles(samples);
      jsonLine(BENCH, `items_1000_${label}_p50_ms`, p.p50, 'ms');
      jsonLine(BENCH, `items_1000_${label}_p95_ms`, p.p95, 'ms');
      jsonLine(BENCH, `goal_items_1000_${label}_p95_under_100ms`, p.p95 < GOAL_PAGE_P95_MS, 'met?');
    }
  } finally {
    await getPool().query(`DELETE FROM personal_access_tokens WHERE user_id = $1`, [session.data.user.id]);
    await session.end();
    await clearExportUat(getPool(), SIRUTA);
    await fs.rm(tmp, { recursive: true, force: true });
    await closePool();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
