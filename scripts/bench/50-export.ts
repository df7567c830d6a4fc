/**
 * Export bench (issue 8; run by `npm run bench`, or alone: `npx tsx scripts/bench/50-export.ts
 * [--parcels N] [--siruta S]`). Prints JSON lines:
 *   - `plain-ogr2ogr-gpkg`: one ogr2ogr of the UAT's parcel rows (same columns) from PostGIS to
 *     GPKG, the reference;
 *   - `magic-bundle` / `base-bundle`: the whole bundle (GPKG, CSV, quality report, DXF, ZIP
 *     streamed to S3), with the GPKG step alone and its ratio to the reference (goal <= 1.2);
 *   - `peak-memory`: the highest RSS sampled during the bundle builds, of this process (which
 *     streams the ZIP) and of its ogr2ogr children together.
 * Without --siruta, a synthetic UAT of --parcels parcels (default 200,000, the `bench` scale) is
 * written into the store first (SIRUTA 990900) and removed afterwards.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { closePool, getPool } from '../../domain/db/pool';
import { buildAndStoreExport } from '../../domain/exports/service';
import { ogr2ogr, pgDatasource } from '../../domain/exports/gdal';
import { geometryKindFromDimension, layerSelectSql, ogrGeometryType } from '../../domain/exports/layers';
import { EPSG_3844 } from '../../domain/geo/epsg3844';
import { clearExportUat, seedExportUat } from '../../test/helpers/exportSeed';

const BENCH_SIRUTA = 990900;
/** RSS sampling period: short enough to catch an ogr2ogr peak. */
const SAMPLE_MS = 50;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const out = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ bench: 'export', ...o })}\n`);

async function childPids(pid: number): Promise<number[]> {
  const tasks = await fs.readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const pids: number[] = [];
  for (const t of tasks) {
    const text = await fs.readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => '');
    for (const p of text.trim().split(/\s+/)) if (p) pids.push(Number(p));
  }
  return pids;
}

async function rssKb(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** Samples this process's RSS and its children's together until stopped. */
function sampleMemory() {
  let peakSelf = 0;
  let peakTotal = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const self = process.memoryUsage().rss / 1024;
      let children = 0;
      for (const c of await childPids(process.pid)) children += await rssKb(c);
      peakSelf = Math.max(peakSelf, self);
      peakTotal = Math.max(peakTotal, self + children);
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { selfMb: Math.round(peakSelf / 1024), withChildrenMb: Math.round(peakTotal / 1024) };
  };
}

async function main(): Promise<void> {
  const db = getPool();
  const given = arg('siruta');
  const siruta = given ? Number(given) : BENCH_SIRUTA;
  if (!given) {
    const parcels = Number(arg('parcels') ?? 200_000);
    const t = performance.now();
    await seedExportUat(db, { siruta, name: 'Bench Export', county: 'Brăila', parcels, noGeometry: Math.round(parcels * 0.08), syncedHoursAgo: 1 });
    out({ what: 'seed', siruta, parcels, ms: Math.round(performance.now() - t) });
  }
  const rows = (
    await db.query<{ n: number; dim: number | null }>(
      `SELECT count(*)::int AS n, max(ST_Dimension(geom)) AS dim FROM gis_features WHERE siruta = $1 AND layer_id = 'TERENURI_ACTIVE'`,
      [siruta],
    )
  ).rows[0];
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'export-bench-'));
  try {
    // Reference: the same parcel rows and columns, one plain ogr2ogr to GPKG.
    const kind = geometryKindFromDimension(rows.dim);
    const sqlFile = path.join(tmp, 'plain.sql');
    await fs.writeFile(
      sqlFile,
      layerSelectSql({ siruta, layerId: 'TERENURI_ACTIVE', includeNullGeometry: true, includeNoGeometryImports: true, hidePersonal: false, geometryKind: kind }),
    );
    let t = performance.now();
    await ogr2ogr(['-f', 'GPKG', path.join(tmp, 'plain.gpkg'), pgDatasource(), '-sql', `@${sqlFile}`, '-nln', 'parcele', '-a_srs', EPSG_3844, '-nlt', ogrGeometryType(kind)]);
    const plainMs = Math.round(performance.now() - t);
    out({ what: 'plain-ogr2ogr-gpkg', siruta, rows: rows.n, ms: plainMs });

    const stop = sampleMemory();
    for (const mode of ['magic', 'base'] as const) {
      t = performance.now();
      const stored = await buildAndStoreExport({
        db,
        siruta,
        jobId: `bench-export-${mode}:${siruta}`,
        userId: 'bench',
        target: { kind: 'bundle', mode },
        tmpRoot: tmp,
      });
      const ms = Math.round(performance.now() - t);
      const gpkgStep = stored.pipeline.filter((s) => s.step === 'gpkg' || s.step.startsWith('gpkg:'));
      const gpkgMs = Math.max(...gpkgStep.map((s) => s.durationMs));
      out({
        what: `${mode}-bundle`,
        siruta,
        rows: rows.n,
        ms,
        gpkgStepMs: gpkgMs,
        gpkgStepVsPlain: Number((gpkgMs / plainMs).toFixed(2)),
        bundleVsPlain: Number((ms / plainMs).toFixed(2)),
        zipBytes: stored.bytes,
        steps: Object.fromEntries(stored.pipeline.map((s) => [s.step, s.durationMs])),
      });
    }
    out({ what: 'peak-memory', ...(await stop()) });
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
    if (!given) await clearExportUat(db, siruta);
    await closePool();
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
