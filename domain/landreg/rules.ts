/**
 * The land registry's pure rules, importable from anywhere (pages' browser code, other areas,
 * workflows): the sync's wording of what changed, the jobs' kinds and progress record, the
 * counties, how a SIRUTA code is read. No I/O.
 */
export { changesByLayer, describeSyncChanges, layerName, layerWord } from './sync/rules';
export {
  DEFAULT_SYNC_LAYERS,
  PORTAL_JOB_KINDS,
  RECENT_START_MS,
  START_IN_FLIGHT_MS,
  percentOf,
  progressStillKept,
  recordedStartRuns,
  type JobProgress,
  type PortalJobKind,
  type RecordedStartState,
} from './jobKinds';
export { COUNTIES } from './counties';
export { INVALID_SIRUTA_MESSAGE, PG_INT_MAX, sirutaParam } from './siruta';

/** Characters of the sync tab's search of the store's UATs (`?uatQ=`): longer than any UAT and county name together. */
export const UAT_SEARCH_MAX_CHARS = 100;
