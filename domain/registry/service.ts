/**
 * The registry's application service: what the registry page reads, the same functions the
 * registry routes call, each applying the registry viewer (docs/architecture.md "Application
 * services").
 */
export { entryHistory, getEntry, listEntries } from './entries';
