/**
 * The office's door (docs/architecture.md "Areas", docs/office.md): the address book and project
 * tags for external tools, the password vault (each call scoped to the caller's company inside)
 * and the key-value storage, as the office routes (api/routes/officeAddressBook.ts, officeVault.ts,
 * officeStorage.ts) and the utilities page's loader (through the load context) call them. Built
 * once per process by `domain/services.ts`. Its pure rules (companies, the vault's caller) are in
 * `rules.ts`; the tag manager is the tags area's.
 */
import type { AreaDeps } from '../areaDeps';
import { createContact, deleteContact, getContact, listContacts, updateContact, type ContactInput } from './addressBook';
import type { VaultCaller } from './rules';
import {
  deleteItem,
  hasRowsAfter,
  itemJson,
  namespaceRows,
  putItem,
  storageOwner,
  storageUsed,
  type StorageAddress,
  type StorageCaller,
  type StorageOwner,
  type StorageRow,
} from './storage';
import { createVaultEntry, deleteVaultEntry, listVault, migrateLegacyVault, revealVaultEntry, updateVaultEntry, vaultAccessLog, type VaultInput } from './vault';

export type { ContactOut } from './addressBook';
export type { StorageCaller } from './storage';
export type { VaultAccessOut, VaultEntryOut } from './vault';

export function createOfficeService({ store }: AreaDeps) {
  const { prisma, pool } = store;
  return {
    listContacts: (filter: { q?: string; company?: string; type?: string }) => listContacts(prisma, filter),
    getContact: (id: string) => getContact(prisma, id),
    createContact: (input: ContactInput & { name: string }, createdBy: string | null) => createContact(prisma, input, createdBy),
    updateContact: (id: string, input: ContactInput) => updateContact(prisma, id, input),
    deleteContact: (id: string) => deleteContact(prisma, id),

    listVault: (caller: VaultCaller, q?: string) => listVault(prisma, caller, q),
    /** One entry with its password; the read is logged. */
    revealVaultEntry: (caller: VaultCaller, id: string) => revealVaultEntry(prisma, caller, id),
    createVaultEntry: (caller: VaultCaller, input: VaultInput & { name: string }) => createVaultEntry(prisma, caller, input),
    updateVaultEntry: (caller: VaultCaller, id: string, input: VaultInput) => updateVaultEntry(prisma, caller, id, input),
    deleteVaultEntry: (caller: VaultCaller, id: string) => deleteVaultEntry(prisma, caller, id),
    /** Re-encrypts the caller's legacy plaintext entries. */
    migrateLegacyVault: (caller: VaultCaller) => migrateLegacyVault(prisma, caller),
    vaultAccessLog: (caller: VaultCaller, entryId?: string, limit?: number) => vaultAccessLog(prisma, caller, entryId, limit),

    /** Bytes a company's values take (its quota's `used`). */
    storageUsed: (company: string) => storageUsed(pool, company),
    /** The owner a request reaches: 404 for another company's namespace, 403 for an account without a company. */
    storageOwner: (caller: StorageCaller, namespace: string, at: StorageAddress) => storageOwner(pool, caller, namespace, at),
    namespaceRows: (owner: StorageOwner, namespace: string, opts: { after?: string; limit?: number; signal?: AbortSignal }) => namespaceRows(pool, owner, namespace, opts),
    hasRowsAfter: (owner: StorageOwner, namespace: string, key: string) => hasRowsAfter(pool, owner, namespace, key),
    /** One exported record as JSON, big embedded payloads replaced by a marker when `lightweight`. */
    itemJson: (row: StorageRow, lightweight: boolean) => itemJson(row, lightweight),
    /** Writes one record within the company's quota (413 `storage_quota_exceeded` past it). */
    putItem: (caller: StorageCaller, at: StorageAddress, item: { namespace: string; key: string; json: Buffer }, quota: number) => putItem(pool, caller, at, item, quota),
    deleteItem: (owner: StorageOwner, namespace: string, key: string) => deleteItem(pool, owner, namespace, key),
  };
}

export type OfficeService = ReturnType<typeof createOfficeService>;
