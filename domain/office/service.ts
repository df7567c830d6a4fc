/**
 * The office's application service: what the office and assistant pages read, the same functions
 * the address-book, project-tag and vault routes call (docs/architecture.md "Application
 * services"; the tag manager's is domain/tags/service.ts).
 */
export { listContacts, listProjectTags } from './addressBook';
export { listVault, vaultAccessLog, vaultCaller } from './vault';
export { storageUsed } from './storage';
