/**
 * What the registry page needs on the server: the registry's service (domain/registry/service.ts,
 * from the load context) and its viewer rules, as the registry API (api/routes/registratura.ts)
 * calls them.
 */
import type { SessionContext } from '../../../domain/auth/rules';
import { AppError } from '../../../domain/errors';
import { intParam } from '../../../domain/text/intParam';
import { isUuid, searchText } from '../../../domain/text/queryText';
import {
  COMPANIES,
  DIRECTIONS,
  REGISTRY_LIST_BOUNDS,
  readableCompanies,
  registryViewer,
  writableCompanies,
  type Direction,
  type RegistryCompany,
} from '../../../domain/registry/rules';
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

const LIST = REGISTRY_LIST_BOUNDS;

/** An integer within [min, max] as the API's query schema reads one (ListQuery), else undefined. */
function boundedInt(raw: string | null, min: number, max: number): number | undefined {
  const n = intParam(raw, min, max);
  return typeof n === 'number' ? n : undefined;
}

/**
 * The list's filters from the page's address, held to the API's bounds (REGISTRY_LIST_BOUNDS).
 * Where the API answers 400, the page drops the value and shows the list without it, as it always
 * did for an unknown company: the page's own links and search form never write such a value, so
 * it comes from an edited or stale address, and its reader is better served by the registry than
 * by an error page. The filter fields then show what was applied. A search text past the bound is
 * cut (the box has no length limit); one holding NUL, which PostgreSQL cannot take and the API
 * refuses on every input, is dropped whole.
 */
function listFilters(p: URLSearchParams) {
  const company = (COMPANIES as readonly string[]).includes(p.get('company') ?? '') ? (p.get('company') as RegistryCompany) : undefined;
  const direction = (DIRECTIONS as readonly string[]).includes(p.get('direction') ?? '') ? (p.get('direction') as Direction) : undefined;
  const year = boundedInt(p.get('year'), LIST.yearMin, LIST.yearMax);
  const q = searchText(p.get('q'), LIST.searchMaxChars);
  const page = boundedInt(p.get('page'), 1, LIST.pageMax) ?? 1;
  return { company, direction, year, q, page };
}

export async function registryPageData(registry: RegistryService, auth: SessionContext, url: URL): Promise<RegistryPageData> {
  const viewer = registryViewer(auth);
  const p = url.searchParams;
  const { company, direction, year, q, page: pageNo } = listFilters(p);
  const page = await registry.listEntries(viewer, { company, direction, year, q: q || undefined, page: pageNo, pageSize: 25 });
  let selected: RegistryEntry | null = null;
  let history: HistoryItem[] = [];
  let error: string | null = null;
  const id = p.get('id');
  if (isUuid(id)) {
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
