/**
 * What the registry page needs on the server: the registry's service (domain/registry/service.ts,
 * from the load context) and its viewer rules, as the registry API (api/routes/registratura.ts)
 * calls them.
 */
import type { SessionContext } from '../../../domain/auth/rules';
import { AppError } from '../../../domain/errors';
import { COMPANIES, DIRECTIONS, readableCompanies, registryViewer, writableCompanies, type Direction, type RegistryCompany } from '../../../domain/registry/rules';
import type { EntryPage, HistoryItem, RegistryEntry, RegistryService } from '../../../domain/registry/service';

export type { EntryPage, HistoryItem, RegistryEntry };

export interface RegistryPageData {
  page: EntryPage;
  filters: { company: string; year: string; direction: string; q: string };
  selected: RegistryEntry | null;
  history: HistoryItem[];
  error: string | null;
  viewer: {
    company: string | null;
    isAdmin: boolean;
    restricted: boolean;
    /** The companies whose registry the user reads: the company filter offers these only. */
    readable: string[];
    writable: string[];
  };
}

export async function registryPageData(registry: RegistryService, auth: SessionContext, url: URL): Promise<RegistryPageData> {
  const viewer = registryViewer(auth);
  const p = url.searchParams;
  const company = (COMPANIES as readonly string[]).includes(p.get('company') ?? '') ? (p.get('company') as RegistryCompany) : undefined;
  const direction = (DIRECTIONS as readonly string[]).includes(p.get('direction') ?? '') ? (p.get('direction') as Direction) : undefined;
  const year = /^\d{4}$/.test(p.get('year') ?? '') ? Number(p.get('year')) : undefined;
  const q = (p.get('q') ?? '').slice(0, 200);
  const pageNo = Math.max(1, Number(p.get('page')) || 1);
  const page = await registry.listEntries(viewer, { company, direction, year, q: q || undefined, page: pageNo, pageSize: 25 });
  let selected: RegistryEntry | null = null;
  let history: HistoryItem[] = [];
  let error: string | null = null;
  const id = p.get('id');
  if (id && /^[0-9a-f-]{36}$/i.test(id)) {
    try {
      selected = await registry.getEntry(viewer, id);
      history = await registry.entryHistory(viewer, id);
    } catch (err) {
      error = err instanceof AppError ? err.message : 'A apărut o eroare neașteptată.';
    }
  }
  return {
    page,
    filters: { company: company ?? '', year: year ? String(year) : '', direction: direction ?? '', q },
    selected,
    history,
    error,
    viewer: {
      company: viewer.company,
      isAdmin: viewer.isAdmin,
      restricted: viewer.restricted,
      readable: readableCompanies(viewer),
      writable: writableCompanies(viewer),
    },
  };
}
