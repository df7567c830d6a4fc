/**
 * Who owns each table (issue 28, docs/architecture.md "Table owners"), read from the areas' records
 * (domain/areas.ts). Every table of the schema belongs to exactly one area; only the owner's files
 * name it in SQL or reach it through Prisma.
 * Another area calls the owner's service (its door: the registry's `dueEntries`, ...).
 * `test/unit/table-owners.test.ts` scans the sources and fails on any other access, and on a
 * table of the migrations missing here. Migrations (`prisma/`) are every table's own.
 */
import { AREA_NAMES, AREAS, KERNEL_TABLES, type AreaName, type AreaRecord } from '../areas';

/** Each area's files: its folder of domain/ and what its record adds (a folder ends in `/`), and the kernel's limits. */
export const AREA_FILES: Record<Area, readonly string[]> = {
  ...(Object.fromEntries(AREA_NAMES.map((a) => [a, [`domain/${a}/`, ...((AREAS[a] as AreaRecord).files ?? [])]])) as unknown as Record<AreaName, readonly string[]>),
  limits: ['domain/limits/'],
};

/** An area of domain/areas.ts, or the kernel's limits (the tables every web process shares, issue 44 item 3). */
export type Area = AreaName | 'limits';

/** Every table of the schema. */
export type Table = (typeof AREAS)[AreaName]['tables'][number] | keyof typeof KERNEL_TABLES;

export const TABLE_OWNERS = {
  ...Object.fromEntries(AREA_NAMES.flatMap((a) => (AREAS[a] as AreaRecord).tables.map((t) => [t, a]))),
  ...Object.fromEntries(Object.keys(KERNEL_TABLES).map((t) => [t, 'limits' as const])),
} as Record<Table, Area>;

/**
 * The accesses outside the owner that stay, each one statement that must stay one. Keep this
 * list short: anything else goes through the owner's functions.
 */
export const SHARED_TABLES: ReadonlyArray<{ tables: readonly Table[]; files: readonly string[]; why: string }> = [
  {
    tables: ['gis_features', 'gis_uats'],
    files: AREA_FILES.enrichment,
    why: 'the enrichment columns of gis_features are written, and each batch selected, by one indexed statement over the features',
  },
  {
    tables: ['gis_features', 'gis_uats'],
    files: AREA_FILES.geoportal,
    why: 'search, feature panel, UAT card and selection export are each one indexed statement over the features and their UAT',
  },
  {
    tables: ['gis_features', 'gis_uats'],
    files: AREA_FILES.exports,
    why: "a bundle's layers are SQL that GDAL (ogr2ogr) runs as one statement over the store",
  },
  {
    tables: ['gis_features', 'gis_uats', 'gis_sync_runs'],
    files: AREA_FILES.ogc,
    why: 'an item page is one keyset statement that PostgreSQL builds as GeoJSON (docs/qgis.md); the collection extents one statement too',
  },
  {
    tables: ['feature_changes', 'watchlist'],
    files: ['domain/landreg/sync/store.ts', 'domain/enrichment/store.ts'],
    why: "a feature's history row is written by the statement that changes the feature, pending notification when its UAT is followed",
  },
];

/** Whether `file` (a path from the repository root) belongs to one of `files`. */
export function inFiles(file: string, files: readonly string[]): boolean {
  return files.some((f) => (f.endsWith('/') ? file.startsWith(f) : file === f));
}

/** Whether `file` may name `table`: the owner's files, a shared statement's, or a migration. */
export function mayAccess(file: string, table: Table): boolean {
  if (file.startsWith('prisma/')) return true;
  if (inFiles(file, AREA_FILES[TABLE_OWNERS[table]])) return true;
  return SHARED_TABLES.some((s) => s.tables.includes(table) && inFiles(file, s.files));
}
