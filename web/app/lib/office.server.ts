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
import { OFFICE_TABS } from '../components/tools/ToolsLayout';

async function orError<T>(p: Promise<T>, fallback: string): Promise<{ data: T | null; error: string | null }> {
  try {
    return { data: await p, error: null };
  } catch (err) {
    return { data: null, error: err instanceof AppError ? err.message : fallback };
  }
}

/** The page's tabs (OFFICE_TABS): each loads only its own data (`?tab=`; the first, the tag manager, when none). */
export type OfficeTab = (typeof OFFICE_TABS)[number]['key'];

export const officeTabOf = (value: string | null): OfficeTab => OFFICE_TABS.find((t) => t.key === value)?.key ?? OFFICE_TABS[0].key;

/** A tab not shown: nothing read (the vault and the address book hold personal data). */
const notShown = <T>(): Promise<{ data: T | null; error: string | null }> => Promise.resolve({ data: null, error: null });

/**
 * The shown tab's reads only: the tags and the tag file's plan, the vault and its access log, or
 * the address book. Loading every tab on each visit read (and sent) the vault and the contacts to
 * whoever only meant to tag a project, and the whole tag file's plan beside them.
 */
export async function officePage({ office, tags: tagsService }: Pick<Services, 'office' | 'tags'>, auth: SessionContext, tab: OfficeTab) {
  const caller = vaultCaller(auth);
  const company = auth.user.company;
  const [tags, plan, vault, accessLog, contacts, storageUse] = await Promise.all([
    tab === 'etichete' ? orError(tagsService.listTags(), 'Etichetele nu au putut fi citite.') : notShown<Awaited<ReturnType<typeof tagsService.listTags>>>(),
    tab === 'etichete' ? orError(tagsService.syncPlan(), 'Fișierul de etichete nu a putut fi citit.') : notShown<Awaited<ReturnType<typeof tagsService.syncPlan>>>(),
    tab === 'seif' ? orError(office.listVault(caller), 'Seiful nu a putut fi citit.') : notShown<Awaited<ReturnType<typeof office.listVault>>>(),
    tab === 'seif' ? orError(office.vaultAccessLog(caller, undefined, 50), 'Jurnalul de acces nu a putut fi citit.') : notShown<Awaited<ReturnType<typeof office.vaultAccessLog>>>(),
    tab === 'agenda' ? orError(office.listContacts({}), 'Agenda nu a putut fi citită.') : notShown<Awaited<ReturnType<typeof office.listContacts>>>(),
    // The company's storage against its quota (CONTRACT.md 6), as the storage API counts it.
    orError<number | null>(company ? office.storageUsed(company) : Promise.resolve(null), 'Spațiul de stocare folosit nu a putut fi citit.'),
  ]);
  const storage = { used: storageUse.data, quota: config.office.storageQuotaBytes, error: storageUse.error };
  return { tab, tags, plan, vault, accessLog, contacts, storage };
}
