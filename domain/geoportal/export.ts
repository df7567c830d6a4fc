/**
 * POST /api/geoportal/export (spec 4.1, CONTRACT.md section 4): the selected features written by
 * ogr2ogr straight from PostGIS into a temporary directory, as
 *   - GeoJSON: WGS84, RFC 7946 (ogr2ogr reprojects and fixes ring orientation);
 *   - DXF: Stereo 70 with source AND target SRS given explicitly (spec 4.1: CAD users' drawings
 *     are in EPSG:3844, and DXF has no place to say so, so nothing may be guessed);
 *   - GPKG: Stereo 70 with a spatial index.
 * The caller streams the file and then calls `cleanup()`. ogr2ogr runs through the one
 * child-process runner: memory-limited, and killed when the caller's `signal` aborts.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { errors, AppError } from '../errors';
import { GdalError, ogr2ogr, pgDatasource } from '../exports/service';
import { childLogger } from '../log';
import type { Db } from '../db/pool';
import { EPSG_3844 } from '../geo/epsg3844';
import { PERSONAL_ENRICHMENT_KEYS } from './rules';
import { slug } from './text';
import { makeTempDir } from '../storage/service';
import type { Viewer } from './types';

const log = childLogger('geoportal-export');

/** ogr2ogr writes 5,000 parcels in a few seconds; a minute means something is stuck. */
const OGR_TIMEOUT_MS = 120_000;

export type ExportFormat = 'geojson' | 'dxf' | 'gpkg';

const FORMATS: Record<ExportFormat, { driver: string; ext: string; contentType: string }> = {
  geojson: { driver: 'GeoJSON', ext: 'geojson', contentType: 'application/geo+json' },
  dxf: { driver: 'DXF', ext: 'dxf', contentType: 'image/vnd.dxf' },
  gpkg: { driver: 'GPKG', ext: 'gpkg', contentType: 'application/geopackage+sqlite3' },
};

/** Enrichment keys exported as columns (lower case), personal ones dropped when hidden. */
const ENRICHMENT_COLUMNS = [
  'NR_CF',
  'NR_CF_VECHI',
  'NR_TOPO',
  'INTRAVILAN',
  'CATEGORIE',
  'ADRESA',
  'PROPRIETARI',
  'SUPRAFATA_MASURATA',
  'SUPRAFATA_ACTE',
  'HAS_BUILDING',
  'BUILD_LEGAL',
] as const;

const LAYER_WORD: Record<string, string> = { TERENURI_ACTIVE: 'parcele', CLADIRI_ACTIVE: 'cladiri' };

export interface ExportFile {
  path: string;
  fileName: string;
  contentType: string;
  count: number;
  /** Ids asked for that are not in the store or have no geometry. */
  missing: number;
  cleanup: () => Promise<void>;
}

type Picked = { id: string; siruta: number; layer_id: string; uat_name: string | null; polygonal: boolean };

/**
 * `parcele_<uat>_<n>.<ext>` for one UAT, `parcele_<k>-uat_<n>` for several; `cladiri` for
 * buildings, `obiecte` when layers are mixed.
 */
export function exportFileName(rows: Pick<Picked, 'siruta' | 'layer_id' | 'uat_name'>[], ext: string): string {
  const layers = new Set(rows.map((r) => r.layer_id));
  const word = layers.size === 1 ? (LAYER_WORD[[...layers][0]] ?? slug([...layers][0])) : 'obiecte';
  const uats = new Map(rows.map((r) => [r.siruta, r.uat_name]));
  const where =
    uats.size === 1 ? (() => { const [s, n] = [...uats][0]; return n ? slug(n) : `uat-${s}`; })() : `${uats.size}-uat`;
  return `${word}_${where}_${rows.length}.${ext}`;
}

function selectSql(ids: string[], format: ExportFormat, viewer: Viewer): string {
  // The ids come from the store (uuid column read back), not from the request, and are checked
  // against the uuid shape once more: nothing the caller typed reaches this SQL text.
  for (const id of ids) if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error(`unexpected id ${id}`);
  const idList = ids.map((id) => `'${id}'`).join(',');
  const from = `FROM public.gis_features f LEFT JOIN public.gis_uats u ON u.siruta = f.siruta WHERE f.id IN (${idList})`;
  if (format === 'dxf') {
    // DXF keeps no attribute table; the CAD layer name tells parcels from buildings.
    return `SELECT upper(COALESCE(${Object.entries(LAYER_WORD)
      .map(([k, v]) => `CASE WHEN f.layer_id = '${k}' THEN '${v}' END`)
      .join(', ')}, f.layer_id)) AS "Layer", f.geom ${from} ORDER BY f.siruta, f.cadastral_ref`;
  }
  const hidden = new Set<string>(viewer.personalData ? [] : PERSONAL_ENRICHMENT_KEYS);
  const enrichment = viewer.basicPanel
    ? []
    : ENRICHMENT_COLUMNS.filter((k) => !hidden.has(k)).map((k) => `f.enrichment->>'${k}' AS ${k.toLowerCase()}`);
  const columns = [
    'f.id::text AS id',
    'f.layer_id',
    'f.siruta',
    'u.name AS uat',
    'f.object_id',
    'f.cadastral_ref',
    'f.area_value',
    ...enrichment,
    ...(viewer.basicPanel ? [] : ["to_char(f.enriched_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS enriched_at"]),
    'f.geom',
  ];
  return `SELECT ${columns.join(', ')} ${from} ORDER BY f.siruta, f.cadastral_ref`;
}

function ogrArgs(format: ExportFormat, out: string, sqlFile: string, layerName: string, polygonal: boolean): string[] {
  // A declared MultiPolygon layer is what GIS users expect of parcels; mixed input stays generic.
  const nlt = polygonal ? 'MULTIPOLYGON' : 'PROMOTE_TO_MULTI';
  const common = ['-f', FORMATS[format].driver, out, pgDatasource(), '-sql', `@${sqlFile}`];
  switch (format) {
    case 'geojson':
      return [...common, '-s_srs', EPSG_3844, '-t_srs', 'EPSG:4326', '-nln', layerName, '-lco', 'RFC7946=YES', '-lco', 'COORDINATE_PRECISION=7'];
    case 'dxf':
      return [...common, '-s_srs', EPSG_3844, '-t_srs', EPSG_3844, '-nlt', nlt];
    case 'gpkg':
      return [...common, '-a_srs', EPSG_3844, '-nln', layerName, '-nlt', nlt, '-lco', 'SPATIAL_INDEX=YES'];
  }
}

export async function exportFeatures(
  format: ExportFormat,
  featureIds: string[],
  viewer: Viewer,
  db: Db,
  signal?: AbortSignal,
): Promise<ExportFile> {
  const wanted = [...new Set(featureIds.map((id) => id.toLowerCase()))];
  const picked = await db.query<Picked>(
    `SELECT f.id::text AS id, f.siruta, f.layer_id, u.name AS uat_name,
            ST_Dimension(f.geom) = 2 AS polygonal
       FROM gis_features f LEFT JOIN gis_uats u ON u.siruta = f.siruta
      WHERE f.id = ANY($1::uuid[]) AND f.geom IS NOT NULL`,
    [wanted],
  );
  if (!picked.rowCount) throw errors.notFound('Niciunul dintre obiectele selectate nu există sau nu are geometrie.');
  const rows = picked.rows;
  const { ext, contentType } = FORMATS[format];
  const fileName = exportFileName(rows, ext);
  const dir = await makeTempDir('selection-export');
  const cleanup = () => fs.rm(dir, { recursive: true, force: true });
  try {
    const sqlFile = path.join(dir, 'select.sql');
    await fs.writeFile(sqlFile, selectSql(rows.map((r) => r.id), format, viewer));
    const out = path.join(dir, fileName);
    const layerName = fileName.replace(/_\d+\.\w+$/, '');
    await ogr2ogr(ogrArgs(format, out, sqlFile, layerName, rows.every((r) => r.polygonal)), { timeoutMs: OGR_TIMEOUT_MS, signal });
    return { path: out, fileName, contentType, count: rows.length, missing: wanted.length - rows.length, cleanup };
  } catch (err) {
    await cleanup();
    if (err instanceof AppError || signal?.aborted) throw err;
    const stderr = err instanceof GdalError ? err.stderr : undefined;
    log.error({ format, count: rows.length, stderr }, 'ogr2ogr export failed');
    throw errors.internal(`Conversia ${format.toUpperCase()} cu ogr2ogr a eșuat.`);
  }
}
