/**
 * The office utilities page's reads: the office's and the tags' services (from the load context)
 * and the vault's caller rule, as the API (/api/tags, /api/manictime, /api/vault, /api/contacts)
 * calls them, in process.
 */
import type { SessionContext } from '../context';
import { config } from '../../../domain/config';
import type { Services } from '../../../domain/services';
import { AppError } from '../../../domain/errors';
import { vaultCaller } from '../../../domain/office/rules';

async function orError<T>(p: Promise<T>, fallback: string): Promise<{ data: T | null; error: string | null }> {
  try {
    return { data: await p, error: null };
  } catch (err) {
    return { data: null, error: err instanceof AppError ? err.message : fallback };
  }
}

export async function officePage({ office, tags: tagsService }: Pick<Services, 'office' | 'tags'>, auth: SessionContext) {
  const caller = vaultCaller(auth);
  const company = auth.user.company;
  const [tags, plan, vault, accessLog, contacts, storageUse] = await Promise.all([
    orError(tagsService.listTags(), 'Etichetele nu au putut fi citite.'),
    orError(tagsService.syncPlan(), 'Fișierul de etichete nu a putut fi citit.'),
    orError(office.listVault(caller), 'Seiful nu a putut fi citit.'),
    orError(office.vaultAccessLog(caller, undefined, 50), 'Jurnalul de acces nu a putut fi citit.'),
    orError(office.listContacts({}), 'Agenda nu a putut fi citită.'),
    // The company's storage against its quota (CONTRACT.md 6), as the storage API counts it.
    orError<number | null>(company ? office.storageUsed(company) : Promise.resolve(null), 'Spațiul de stocare folosit nu a putut fi citit.'),
  ]);
  const storage = { used: storageUse.data, quota: config.office.storageQuotaBytes, error: storageUse.error };
  return { tags, plan, vault, accessLog, contacts, storage };
}
