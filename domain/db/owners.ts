/**
 * Who owns each table (issue 28, docs/architecture.md "Table owners"). Every table of the schema
 * belongs to exactly one area; only the owner's files name it in SQL or reach it through Prisma.
 * Another area calls the owner's functions (the landreg store's `domain/landreg/reads.ts`, the CF
 * area's `domain/cfportal/lookups.ts`, the registry's `domain/registry/due.ts`, ...).
 * `test/unit/table-owners.test.ts` scans the sources and fails on any other access, and on a
 * table of the migrations missing here. Migrations (`prisma/`) are every table's own.
 */

/** Each area's files: a folder (ending in `/`) or one file. An area that owns no table (central API, AI chat, PDF tools) is not listed. */
export const AREA_FILES = {
  /** The landreg store: the sync writes it; its tile views are derived objects (domain/store/views.ts). */
  store: ['domain/landreg/', 'domain/store/'],
  enrichment: ['domain/enrichment/'],
  geoportal: ['domain/geoportal/'],
  tiles: ['domain/tiles/'],
  exports: ['domain/exports/'],
  notifications: ['domain/notifications/', 'domain/mail/'],
  registry: ['domain/registry/'],
  cf: ['domain/cfportal/'],
  office: ['domain/office/', 'domain/tags/'],
  scheduling: ['domain/scheduling/'],
  signIn: ['domain/auth/', 'api/auth/'],
  ogc: ['domain/ogc/'],
  outsideCalls: ['domain/outside/'],
  /** The limits every web process shares in shared mode (issue 44 item 3). */
  limits: ['domain/limits/'],
} as const satisfies Record<string, readonly string[]>;

export type Area = keyof typeof AREA_FILES;

export const TABLE_OWNERS = {
  gis_uats: 'store',
  gis_layers: 'store',
  gis_features: 'store',
  gis_layer_counts: 'store',
  gis_sync_runs: 'store',
  gis_sync_pending: 'store',
  landreg_portal_sessions: 'store',
  feature_changes: 'notifications',
  watchlist: 'notifications',
  notifications: 'notifications',
  notification_preferences: 'notifications',
  mail_outbox: 'notifications',
  app_users: 'notifications',
  registry_entries: 'registry',
  registry_entry_history: 'registry',
  registry_counters: 'registry',
  cf_extracts: 'cf',
  cfportal_accounts: 'cf',
  cfportal_sessions: 'cf',
  gis_sync_rules: 'scheduling',
  gis_settings: 'scheduling',
  weekend_sync_queue: 'scheduling',
  app_sessions: 'signIn',
  personal_access_tokens: 'signIn',
  tags: 'office',
  tag_sync_state: 'office',
  contacts: 'office',
  storage_items: 'office',
  storage_usage: 'office',
  vault_entries: 'office',
  vault_access_log: 'office',
  tile_versions: 'tiles',
  tile_archive_builds: 'tiles',
  outside_call_pace: 'outsideCalls',
  work_slot_leases: 'limits',
  rate_limit_hits: 'limits',
} as const satisfies Record<string, Area>;

export type Table = keyof typeof TABLE_OWNERS;

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
