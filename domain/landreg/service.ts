/**
 * The landreg store's application service: what the sync pages' loaders call, the same functions
 * the landreg routes call (docs/architecture.md "Application services").
 */
export { uatOption } from './catalogue';
export { sessionState } from './sessionState';
export { dbSummary, lastSyncChanges, layersSummary, storeStats } from './summary';
