/**
 * Export freshness (spec section 8, "export freshness"; spec 4.4 export-bundle "sync-first"):
 * before an export is built from the store, each layer it reads is synced from the portal only
 * when the store's copy is stale. Pure rules here; the adapter that reads the last successful
 * sync runs is `freshnessInputs` in ./store.
 */
import { layerWord } from '../landreg/rules';

/** Spec 8: a layer synced less than 168 h ago is exported as it is (the default window). */
export const EXPORT_FRESHNESS_HOURS = 168;
/** Spec 8: administrative layers (UAT and intravilan limits) are skipped when synced within 24 h. */
export const ADMIN_LAYER_FRESHNESS_HOURS = 24;
/** Spec 8: the no-geometry import is skipped when it ran within 48 h. */
export const NO_GEOMETRY_IMPORT_FRESHNESS_HOURS = 48;

const HOUR_MS = 3_600_000;

export type LayerCategory = 'terenuri' | 'cladiri' | 'documentatii' | 'administrativ';

export interface LayerFreshnessInput {
  layerId: string;
  category: LayerCategory;
  /** finishedAt of the last GisSyncRun with status `done` for this UAT and layer; null = never. */
  lastSuccessAt: Date | null;
}

export type FreshnessReason = 'never' | 'stale' | 'fresh' | 'forced';

export interface FreshnessDecision {
  /** `layer` = a layer sync; `no-geometry` = the import of immovables without geometry. */
  kind: 'layer' | 'no-geometry';
  layerId: string | null;
  sync: boolean;
  reason: FreshnessReason;
  /** Hours since the last success, rounded to 0.1 h; null when it never ran. */
  ageHours: number | null;
  maxAgeHours: number;
}

export function layerMaxAgeHours(category: LayerCategory): number {
  return category === 'administrativ' ? ADMIN_LAYER_FRESHNESS_HOURS : EXPORT_FRESHNESS_HOURS;
}

function decide(
  kind: FreshnessDecision['kind'],
  layerId: string | null,
  lastSuccessAt: Date | null,
  maxAgeHours: number,
  now: Date,
  force: boolean,
): FreshnessDecision {
  if (!lastSuccessAt) return { kind, layerId, sync: true, reason: 'never', ageHours: null, maxAgeHours };
  // A clock skew that puts the last run in the future counts as "just now", not as stale.
  const ageHours = Math.max(0, Math.round(((now.getTime() - lastSuccessAt.getTime()) / HOUR_MS) * 10) / 10);
  if (force) return { kind, layerId, sync: true, reason: 'forced', ageHours, maxAgeHours };
  const stale = now.getTime() - lastSuccessAt.getTime() >= maxAgeHours * HOUR_MS;
  return { kind, layerId, sync: stale, reason: stale ? 'stale' : 'fresh', ageHours, maxAgeHours };
}

export function decideLayerSync(input: LayerFreshnessInput, now: Date, force = false): FreshnessDecision {
  return decide('layer', input.layerId, input.lastSuccessAt, layerMaxAgeHours(input.category), now, force);
}

export function decideNoGeometryImport(lastSuccessAt: Date | null, now: Date, force = false): FreshnessDecision {
  return decide('no-geometry', null, lastSuccessAt, NO_GEOMETRY_IMPORT_FRESHNESS_HOURS, now, force);
}

export interface ExportSyncPlanInput {
  layers: LayerFreshnessInput[];
  /** Present when the export includes no-geometry records (magic mode with includeNoGeometry). */
  noGeometry?: { lastSuccessAt: Date | null };
  now: Date;
  force?: boolean;
}

/** The sync steps an export runs before building, in order: layers first, then the import. */
export function planExportSync(input: ExportSyncPlanInput): FreshnessDecision[] {
  const plan = input.layers.map((l) => decideLayerSync(l, input.now, input.force));
  if (input.noGeometry) plan.push(decideNoGeometryImport(input.noGeometry.lastSuccessAt, input.now, input.force));
  return plan;
}

/** Romanian one-liner for the pipeline report and the progress message. */
export function describeDecision(d: FreshnessDecision): string {
  const what = d.kind === 'layer' ? `Stratul „${layerWord(d.layerId ?? '')}”` : 'Importul imobilelor fără geometrie';
  switch (d.reason) {
    case 'never':
      return `${what}: nesincronizat până acum, se sincronizează.`;
    case 'forced':
      return `${what}: sincronizare cerută explicit.`;
    case 'stale':
      return `${what}: ultima sincronizare acum ${d.ageHours} h (peste ${d.maxAgeHours} h), se sincronizează.`;
    case 'fresh':
      return `${what}: sincronizat acum ${d.ageHours} h (sub ${d.maxAgeHours} h), sincronizarea este omisă.`;
  }
}
