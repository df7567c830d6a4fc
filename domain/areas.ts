/**
 * Every area of the service, one record each (docs/architecture.md "Areas"): the folder its door
 * guards, the tables it owns, its pages' entries in the top bar, its jobs and workflows, its docs
 * page. Read by the navigation (web/app/navigation.ts), the table owners (domain/db/owners.ts),
 * the door rule (.dependency-cruiser.cjs: every folder of domain/ not in the kernel is an area) and
 * test/unit/areas.test.ts, which holds the job table (temporal/common/jobTable.ts `JOBS`), the
 * registered workflows (workflows/index.ts), the services (domain/services.ts) and the routers
 * (api/app.ts `AREA_ROUTES`) to it: a kind, workflow, service or router no area claims fails.
 * Pure data (pages' browser code imports it).
 */

export interface NavEntry {
  /** Path inside the Remix app. */
  to: string;
  /** Romanian label shown in the top bar. */
  label: string;
  /** Place in the top bar (ascending); spec 1's order of the modules. */
  position: number;
  /** Further path prefixes that belong to this module (the entry is active on them too). */
  also?: readonly string[];
  /** Shown only to administrators. */
  adminOnly?: boolean;
}

export interface AreaRecord {
  /** What the area does, in one line. */
  summary: string;
  /** Its docs page under docs/. */
  docs: string;
  /** Files outside domain/<area>/ that belong to it (a folder ends in `/`). */
  files?: readonly string[];
  /** The tables it owns: only its files name them (test/unit/table-owners.test.ts). */
  tables: readonly string[];
  /** Its pages' entries in the top bar. */
  nav?: readonly NavEntry[];
  /** The job kinds of `JOBS` it starts. */
  jobs: readonly string[];
  /** The workflows it registers (workflows/index.ts). */
  workflows: readonly string[];
}

export const AREAS = {
  ai: { summary: 'the project assistant: chat over a project’s registry entries and UAT, several providers', docs: 'office.md', tables: [], jobs: [], workflows: [] },
  auth: {
    summary: 'sign-in (OIDC), sessions, personal access tokens, the viewer rules every area applies',
    docs: 'architecture.md',
    files: ['api/auth/'],
    tables: ['app_sessions', 'personal_access_tokens'],
    jobs: ['session-housekeeping'],
    workflows: ['sessionHousekeeping'],
  },
  backup: { summary: 'pgBackRest backups of the store and the buckets’ mirror, restore drills', docs: 'operations.md', tables: [], jobs: ['backup', 'backup-nightly', 'backup-watch'], workflows: ['databaseBackup', 'backupKick', 'backupWatch'] },
  central: { summary: 'the central GIS API proxy and search', docs: 'central.md', tables: [], jobs: [], workflows: [] },
  cfportal: {
    summary: 'land-book (CF) extract orders at the certificate portal, paid once, delivered by mail',
    docs: 'cf.md',
    tables: ['cf_extracts', 'cfportal_accounts', 'cfportal_sessions'],
    jobs: ['cf-order-queue', 'cf-order-batch'],
    workflows: ['cfOrderQueue', 'cfOrderBatch'],
  },
  dwg: { summary: 'DWG to DXF conversion through the sidecar', docs: 'office.md', tables: [], jobs: [], workflows: [] },
  enrichment: { summary: 'owners, addresses and areas from the portal; the no-geometry import; the UAT dashboard', docs: 'enrichment.md', tables: [], jobs: ['enrich', 'import-nogeom'], workflows: ['enrichParcels', 'importNoGeometry'] },
  exports: { summary: 'GPKG, DXF and GeoJSON exports of a UAT or a selection', docs: 'exports.md', tables: [], jobs: ['export-bundle', 'export-layer-gpkg'], workflows: ['exportBundle', 'exportLayerGpkg'] },
  geoportal: { summary: 'the map: search, a feature’s panel, the UAT card, the selection’s export', docs: 'store.md', tables: [], nav: [{ to: '/geoportal', label: 'Geoportal', position: 10 }], jobs: [], workflows: [] },
  landreg: {
    summary: 'the land-registry portal: UAT catalogue, parcel sync of a UAT, a county or all, RGI documents',
    docs: 'sync.md',
    files: ['domain/store/'],
    tables: ['gis_uats', 'gis_layers', 'gis_features', 'gis_layer_counts', 'gis_sync_runs', 'gis_sync_pending', 'landreg_portal_sessions', 'portal_job_starts'],
    nav: [
      { to: '/parcel-sync', label: 'Sincronizare parcele', position: 20 },
      { to: '/rgi', label: 'Documente RGI', position: 30 },
    ],
    jobs: ['sync', 'sync-background', 'sync-county', 'sync-all-counties', 'refresh-all', 'auto-refresh', 'layer-sync', 'uat-catalog-refresh', 'portal-health'],
    workflows: ['layerSync', 'uatSync', 'countySync', 'allCountiesSync', 'refreshAll', 'autoRefresh', 'portalHealth', 'uatCatalogRefresh'],
  },
  notifications: {
    summary: 'in-app notifications, e-mails through the outbox, followed parcels, the daily digest',
    docs: 'notifications.md',
    files: ['domain/mail/'],
    tables: ['feature_changes', 'watchlist', 'notifications', 'notification_preferences', 'mail_outbox', 'app_users'],
    nav: [{ to: '/notificari', label: 'Notificări', position: 50 }],
    jobs: ['deliver-mail', 'mail-outbox-sweep', 'daily-digest'],
    workflows: ['deliverMail', 'mailOutboxSweep', 'dailyDigest'],
  },
  office: {
    summary: 'the office’s utilities: address book, file storage with quotas, the vault',
    docs: 'office.md',
    tables: ['contacts', 'storage_items', 'storage_usage', 'vault_entries', 'vault_access_log'],
    nav: [{ to: '/utilitare', label: 'Utilitare', position: 70, also: ['/instrumente'] }],
    jobs: [],
    workflows: [],
  },
  ogc: { summary: 'OGC API Features for desktop GIS, the QGIS project', docs: 'qgis.md', tables: [], jobs: [], workflows: [] },
  outside: { summary: 'every call to an outside system: one transport, shared pace, deadlines, the caller’s stop', docs: 'architecture.md', tables: ['outside_call_pace'], jobs: [], workflows: [] },
  pdf: { summary: 'PDF compression through the cloud service or Ghostscript', docs: 'office.md', tables: [], jobs: [], workflows: [] },
  registry: {
    summary: 'the numbered registry of documents, attachments, status tracking at the authority',
    docs: 'registry.md',
    tables: ['registry_entries', 'registry_entry_history', 'registry_counters'],
    nav: [{ to: '/registratura', label: 'Registratură', position: 60 }],
    jobs: ['registry-status-check'],
    workflows: ['registryStatusCheck'],
  },
  scheduling: {
    summary: 'sync rules, the weekend queue, the sync windows',
    docs: 'scheduling.md',
    tables: ['gis_sync_rules', 'gis_settings', 'weekend_sync_queue'],
    jobs: ['weekend-sync', 'sync-rule-scheduler', 'weekend-sync-kick'],
    workflows: ['syncRuleScheduler', 'weekendSync', 'weekendSyncKick'],
  },
  storage: { summary: 'the object store (S3/MinIO), temporary directories, download names', docs: 'operations.md', tables: [], jobs: [], workflows: [] },
  tags: { summary: 'project, phase and activity tags kept in step with the time tracker’s file', docs: 'office.md', tables: ['tags', 'tag_sync_state'], jobs: [], workflows: [] },
  tiles: {
    summary: 'vector tiles of the store, the overview archive, the tile infrastructure page',
    docs: 'tiles.md',
    tables: ['tile_versions', 'tile_archive_builds'],
    nav: [{ to: '/infrastructura-harti', label: 'Infrastructură hărți', position: 40 }],
    jobs: ['tile-archive-rebuild', 'tile-archive-build'],
    workflows: ['tileArchiveRebuild', 'overviewArchiveBuild'],
  },
} as const satisfies Record<string, AreaRecord>;

export type AreaName = keyof typeof AREAS;

export const AREA_NAMES = Object.keys(AREAS) as AreaName[];

/** The tables the kernel owns (not an area's): the limits every web process shares. */
export const KERNEL_TABLES = { work_slot_leases: 'domain/limits/', rate_limit_hits: 'domain/limits/' } as const;

/** The top bar's entries of every area, in spec 1's order. */
export function areaNavEntries(): NavEntry[] {
  return Object.values(AREAS as Record<string, AreaRecord>)
    .flatMap((a) => a.nav ?? [])
    .sort((a, b) => a.position - b.position);
}
