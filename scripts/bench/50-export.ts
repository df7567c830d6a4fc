/**
 * Export bench (issue 8; run by `npm run bench`, or alone: `npx tsx scripts/bench/50-export.ts
 * [--parcels N] [--siruta S] [--only magic|base]`). Prints JSON lines:
 *   - `plain-ogr2ogr-gpkg`: the reference, plain ogr2ogr runs from PostGIS to GPKG of the same
 *     rows with the same columns (the SQL of domain/exports/layers), spatial index on, the same
 *     session settings as the bundle (EXPORT_SESSION_OPTIONS), nothing running beside them:
 *     `parcelsMs` the parcel table alone, `magicFileMs` the four tables of the magic GPKG into one
 *     file. Run before and after the bundles; the ratios use the mean of the two;
 *   - `plain-ogr2ogr-gpkg-server-defaults`: the parcel reference once more without the session
 *     settings (what a user's ogr2ogr does), for the record;
 *   - `magic-bundle` / `base-bundle`: the whole bundle (GPKG, CSV, quality report, DXF, reports,
 *     ZIP streamed to S3), its GPKG step, the parcel table inside that step, and their ratios to
 *     the reference (goal <= 1.2: `parcelsVsPlain` like with like; `gpkgStepVsPlain` the GPKG step
 *     against the same tables plain; `bundleVsPlain` the whole bundle against the parcel table);
 *   - `peak-memory`: the highest RSS sampled during the bundle builds, of this process (which
 *     streams the ZIP) and of it with its ogr2ogr children together.
 * Without --siruta, a synthetic UAT of --parcels parcels (default 200,000, the `bench` scale) is
 * written into the store first (SIRUTA 990900, then VACUUM ANALYZE so no run pays the first
 * scan's hint bits) and removed afterwards.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { closePool, getPool } from '../../domain/db/pool';
import { storeOn } from '../../domain/db/store';
import { BUNDLE_LAYERS, KNOWN_LAYERS, geometryKindFromDimension, layerSelectSql, ogrGeometryType } from '../../domain/exports/rules';
import { EXPORT_SESSION_OPTIONS, ogr2ogr, pgDatasource } from '../../domain/exports/service';
import { processServices } from '../../temporal/services';
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
  const { exports } = processServices(storeOn(db), { mail: null });
  const given = arg('siruta');
  const siruta = given ? Number(given) : BENCH_SIRUTA;
  if (!given) {
    const parcels = Number(arg('parcels') ?? 200_000);
    const t = performance.now();
    await seedExportUat(db, { siruta, name: 'Bench Export', county: 'Brăila', parcels, noGeometry: Math.round(parcels * 0.08), syncedHoursAgo: 1 });
    out({ what: 'seed', siruta, parcels, ms: Math.round(performance.now() - t) });
    // Fresh rows: the first scan would set their hint bits (writes) in whichever run came first.
    await db.query('VACUUM (ANALYZE) gis_features');
  }
  const dims = await db.query<{ layer_id: string; n: number; dim: number | null }>(
    `SELECT layer_id, count(*)::int AS n, max(ST_Dimension(geom)) AS dim FROM gis_features
      WHERE siruta = $1 AND layer_id = ANY($2::text[]) GROUP BY layer_id`,
    [siruta, BUNDLE_LAYERS.magic],
  );
  const dimOf = new Map(dims.rows.map((r) => [r.layer_id, r]));
  const rows = dimOf.get('TERENURI_ACTIVE')?.n ?? 0;
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'export-bench-'));
  const only = arg('only');
  const modes = (['magic', 'base'] as const).filter((m) => !only || only === m);
  try {
    // Reference: the same rows and columns (the bundle's own SQL), one plain ogr2ogr per table to
    // GPKG with the spatial index, nothing beside it. The magic file's tables are appended like
    // the bundle does, the parcels first.
    const plainTable = async (layerId: string, file: string, update: boolean, pgOptions?: string) => {
      const kind = geometryKindFromDimension(dimOf.get(layerId)?.dim ?? null);
      const sqlFile = path.join(tmp, `plain-${layerId}.sql`);
      await fs.writeFile(
        sqlFile,
        layerSelectSql({ siruta, layerId, includeNullGeometry: true, includeNoGeometryImports: true, hidePersonal: false, geometryKind: kind }),
      );
      const started = performance.now();
      await ogr2ogr(
        [
          '-f', 'GPKG', file, pgDatasource(), '-sql', `@${sqlFile}`,
          ...(update ? ['-update'] : []),
          '-nln', KNOWN_LAYERS[layerId]?.table ?? layerId.toLowerCase(),
          '-a_srs', EPSG_3844, '-nlt', ogrGeometryType(kind), '-lco', 'SPATIAL_INDEX=YES',
        ],
        { pgOptions },
      );
      return Math.round(performance.now() - started);
    };
    const plain = async (round: number) => {
      const file = path.join(tmp, `plain-${round}.gpkg`);
      let magicFileMs = 0;
      let parcelsMs = 0;
      for (const [i, layerId] of BUNDLE_LAYERS.magic.entries()) {
        const ms = await plainTable(layerId, file, i > 0, EXPORT_SESSION_OPTIONS);
        if (layerId === 'TERENURI_ACTIVE') parcelsMs = ms;
        magicFileMs += ms;
      }
      await fs.rm(file, { force: true });
      out({ what: 'plain-ogr2ogr-gpkg', round, siruta, rows, parcelsMs, magicFileMs });
      return { parcelsMs, magicFileMs };
    };
    const before = await plain(1);
    const defaultsFile = path.join(tmp, 'plain-defaults.gpkg');
    out({ what: 'plain-ogr2ogr-gpkg-server-defaults', siruta, rows, parcelsMs: await plainTable('TERENURI_ACTIVE', defaultsFile, false) });
    await fs.rm(defaultsFile, { force: true });

    const stop = sampleMemory();
    const results: Array<Record<string, unknown> & { ms: number; gpkgStepMs: number; gpkgParcelsMs: number }> = [];
    for (const mode of modes) {
      const timings: Record<string, number> = {};
      const t = performance.now();
      const stored = await exports.buildAndStore({
        siruta,
        jobId: `bench-export-${mode}:${siruta}`,
        userId: 'bench',
        target: { kind: 'bundle', mode },
        tmpRoot: tmp,
        onTiming: (what, ms) => {
          timings[what] = ms;
        },
      });
      const ms = Math.round(performance.now() - t);
      const gpkgStep = stored.pipeline.filter((s) => s.step === 'gpkg' || s.step.startsWith('gpkg:'));
      // Base: its two GPKG files are written one after the other in the GeoPackage lane.
      const gpkgStepMs = mode === 'magic' ? gpkgStep[0].durationMs : gpkgStep.reduce((a, s) => a + s.durationMs, 0);
      results.push({
        what: `${mode}-bundle`,
        siruta,
        rows,
        ms,
        gpkgStepMs,
        gpkgParcelsMs: timings['gpkg:parcele'] ?? 0,
        gpkgTables: timings,
        zipBytes: stored.bytes,
        steps: Object.fromEntries(stored.pipeline.map((s) => [s.step, s.durationMs])),
      });
    }
    const peak = await stop();
    const after = await plain(2);
    const plainParcels = (before.parcelsMs + after.parcelsMs) / 2;
    const plainMagicFile = (before.magicFileMs + after.magicFileMs) / 2;
    const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
    for (const r of results) {
      out({
        ...r,
        plainParcelsMs: Math.round(plainParcels),
        // Like with like only for magic (the same rows); base leaves out the rows without geometry.
        ...(r.what === 'magic-bundle'
          ? {
              parcelsVsPlain: ratio(r.gpkgParcelsMs, plainParcels),
              plainMagicFileMs: Math.round(plainMagicFile),
              gpkgStepVsPlain: ratio(r.gpkgStepMs, plainMagicFile),
            }
          : {}),
        bundleVsPlain: ratio(r.ms, plainParcels),
      });
    }
    out({ what: 'peak-memory', ...peak });
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
