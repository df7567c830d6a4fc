/**
 * The geoportal's pure rules, importable from anywhere (pages' browser code, other areas): the
 * viewer rule it applies (one implementation, domain/auth/viewer.ts), the routes' limits, the
 * file-name slug and the UI state of a CF extract. No I/O.
 */
export { PERSONAL_ENRICHMENT_KEYS, personalDataHidden, redactAttributes, redactEnrichment, viewerOf, type EnrichmentScope, type Viewer } from '../auth/rules';
export { slug } from './text';

/** CONTRACT.md section 4: default 20, maximum 50. */
export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 50;
/** The feature panel's layer when the caller names none. */
export const DEFAULT_FEATURE_LAYER = 'TERENURI_ACTIVE';
/** CONTRACT.md section 5: at most 5,000 features a request. */
export const EXPORT_MAX_FEATURES = 5000;
