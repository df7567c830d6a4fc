/**
 * What a caller may see of a parcel: the viewer rule lives in domain/auth/viewer.ts (one
 * implementation); this module only re-exports it for the geoportal's existing imports.
 */
export { PERSONAL_ENRICHMENT_KEYS, personalDataHidden, redactEnrichment, redactRow, viewerOf, type Viewer } from '../auth/rules';
