/**
 * The office utilities page's reads: the office's application services (domain/office/service.ts,
 * domain/tags/service.ts) and caller rules, as the API (/api/tags, /api/manictime, /api/vault,
 * /api/contacts) calls them, in process.
 */
import type { SessionContext } from '../context';
import { config } from '../../../domain/config';
import type { Store } from '../../../domain/db/store';
import { AppError } from '../../../domain/errors';
import { listContacts, listVault, storageUsed, vaultAccessLog, vaultCaller } from '../../../domain/office/service';
import { listTags, tagSyncPlan } from '../../../domain/tags/service';

async function orError<T>(p: Promise<T>, fallback: string): Promise<{ data: T | null; error: string | null }> {
  try {
    return { data: await p, error: null };
  } catch (err) {
    return { data: null, error: err instanceof AppError ? err.message : fallback };
  }
}

export async function officePage(store: Store, auth: SessionContext) {
  const { prisma } = store;
  const caller = vaultCaller(auth);
  const company = auth.user.company;
  const [tags, plan, vault, accessLog, contacts, storageUse] = await Promise.all([
    orError(listTags(prisma), 'Etichetele nu au putut fi citite.'),
    orError(tagSyncPlan(prisma, config.office.tagFilePath), 'Fișierul de etichete nu a putut fi citit.'),
    orError(listVault(prisma, caller), 'Seiful nu a putut fi citit.'),
    orError(vaultAccessLog(prisma, caller, undefined, 50), 'Jurnalul de acces nu a putut fi citit.'),
    orError(listContacts(prisma, {}), 'Agenda nu a putut fi citită.'),
    // The company's storage against its quota (CONTRACT.md 6), as the storage API counts it.
    orError<number | null>(company ? storageUsed(store.pool, company) : Promise.resolve(null), 'Spațiul de stocare folosit nu a putut fi citit.'),
  ]);
  const storage = { used: storageUse.data, quota: config.office.storageQuotaBytes, error: storageUse.error };
  return { tags, plan, vault, accessLog, contacts, storage };
}
