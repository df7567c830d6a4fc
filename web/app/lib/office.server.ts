/**
 * The office utilities page's reads: the same domain functions and caller rules as the API
 * (/api/tags, /api/manictime, /api/vault, /api/contacts), called in process.
 */
import type { SessionContext } from '../context';
import { config } from '../../../domain/config';
import type { Store } from '../../../domain/db/store';
import { AppError } from '../../../domain/errors';
import { listContacts } from '../../../domain/office/addressBook';
import { listVault, vaultAccessLog } from '../../../domain/office/vault';
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
  const caller = { userId: auth.user.id, email: auth.user.email, company: auth.user.company };
  const [tags, plan, vault, accessLog, contacts] = await Promise.all([
    orError(listTags(prisma), 'Etichetele nu au putut fi citite.'),
    orError(tagSyncPlan(prisma, config.office.tagFilePath), 'Fișierul de etichete nu a putut fi citit.'),
    orError(listVault(prisma, caller), 'Seiful nu a putut fi citit.'),
    orError(vaultAccessLog(prisma, caller, undefined, 50), 'Jurnalul de acces nu a putut fi citit.'),
    orError(listContacts(prisma, {}), 'Agenda nu a putut fi citită.'),
  ]);
  return { tags, plan, vault, accessLog, contacts };
}
