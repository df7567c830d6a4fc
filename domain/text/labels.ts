/**
 * The one table of Romanian labels for the words the code keeps internal (issue 42): layer codes,
 * layer categories, job and extract states, workflow steps, export modes. Every page, mail, report
 * and export file name names these things through here, so no code reaches a user. Pure (no
 * imports): workflows read it too.
 */

/** The store's four layers as the office names them (reports, pages, exports, the map). */
export const LAYER_LABELS: Record<string, string> = {
  TERENURI_ACTIVE: 'Parcele',
  CLADIRI_ACTIVE: 'Clădiri',
  LIMITE_INTRAV_DYNAMIC: 'Limite intravilan',
  LIMITE_UAT: 'Limita UAT',
};

/**
 * A layer's Romanian name: ours for the store's layers, else the portal catalogue's name (already
 * Romanian), else its code made readable ("TERENURI_INACTIVE" → "Terenuri inactive").
 */
export function layerLabel(layerId: string, catalogName?: string | null): string {
  const known = LAYER_LABELS[layerId];
  if (known) return known;
  if (catalogName) return catalogName;
  const words = layerId.toLocaleLowerCase('ro').replace(/_/g, ' ');
  return words.charAt(0).toLocaleUpperCase('ro') + words.slice(1);
}

/** The layers' names inside a sentence ("parcele: 3 adăugate"). */
const LAYER_NOUNS: Record<string, string> = {
  TERENURI_ACTIVE: 'parcele',
  CLADIRI_ACTIVE: 'clădiri',
  LIMITE_INTRAV_DYNAMIC: 'limite de intravilan',
  LIMITE_UAT: 'limite UAT',
};

/** The same with the article ("Se sincronizează parcelele…"). */
const LAYER_NOUNS_DEFINITE: Record<string, string> = {
  TERENURI_ACTIVE: 'parcelele',
  CLADIRI_ACTIVE: 'clădirile',
  LIMITE_INTRAV_DYNAMIC: 'limitele de intravilan',
  LIMITE_UAT: 'limita UAT',
};

export const layerNoun = (layerId: string): string => LAYER_NOUNS[layerId] ?? layerLabel(layerId).toLocaleLowerCase('ro');
export const layerNounDefinite = (layerId: string): string => LAYER_NOUNS_DEFINITE[layerId] ?? `stratul „${layerLabel(layerId)}”`;

/** The portal catalogue's layer categories, stored without diacritics. */
export const LAYER_CATEGORY_LABELS: Record<string, string> = {
  terenuri: 'terenuri',
  cladiri: 'clădiri',
  documentatii: 'documentații',
  administrativ: 'administrativ',
};

export const layerCategoryLabel = (category: string | null | undefined): string => (category ? (LAYER_CATEGORY_LABELS[category] ?? category) : '—');

/** A CF extract's stored status (CONTRACT.md 3), as a state a person reads. */
export const EXTRACT_STATUS_LABELS: Record<string, string> = {
  pending: 'în așteptare',
  cart: 'în coșul portalului',
  submitted: 'trimis la portal',
  processing: 'în lucru la portal',
  downloading: 'în descărcare',
  completed: 'emis',
  failed: 'eșuat',
  cancelled: 'anulat',
};

/** The steps of the weekend deep sync, for the UI, notifications and the report. */
export const WEEKEND_STEP_LABELS = {
  sync_terenuri: 'sincronizare terenuri',
  sync_cladiri: 'sincronizare clădiri',
  import_nogeom: 'import parcele fără geometrie',
  enrich: 'îmbogățire',
} as const;

/** The phases a sync job reports (`JobProgress.phase`); `sync:<layer>` is the layer's download. */
export const SYNC_PHASE_LABELS: Record<string, string> = {
  plan: 'Comparare cu portalul',
  download: 'Descărcare',
  remove: 'Ștergere',
  probe: 'Verificare îmbogățire',
  enrich: 'Îmbogățire',
  synced: 'Sincronizat',
  done: 'Gata',
  failed: 'Eșuat',
};

export function syncPhaseLabel(phase: string | null | undefined): string {
  if (!phase) return 'Pornește';
  if (phase.startsWith('sync:')) return `Strat ${layerLabel(phase.slice(5)).toLocaleLowerCase('ro')}`;
  return SYNC_PHASE_LABELS[phase] ?? 'În lucru';
}

/** A UAT bundle's mode: the spec's `base` and `magic`, named for the office. */
export const EXPORT_MODE_LABELS = { base: 'de bază', magic: 'complet' } as const;

/** The mode's word in export file names (ASCII: every file system and mail client keeps it). */
export const EXPORT_MODE_FILE_WORDS = { base: 'baza', magic: 'complet' } as const;

/** A backup's pgBackRest type and its run's state (GET /api/admin/backups), as a person reads them. */
export const BACKUP_TYPE_LABELS: Record<string, string> = { full: 'completă', diff: 'diferențială', incr: 'incrementală' };
export const BACKUP_STATUS_LABELS: Record<string, string> = { running: 'în curs', done: 'reușită', failed: 'eșuată' };
