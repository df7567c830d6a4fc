/**
 * /rgi: documents issued by the land-registry portal's registry of applications (spec 4.4). Pick a
 * county (the portal's 42 workspaces, domain/landreg/counties.ts) and a year: the applications
 * (newest first, each column sortable, dates and the portal's capitals in ordinary writing), one
 * application's details and issued documents beside the list (below it on a narrow screen,
 * scrolled into view), and the download (actor context and confirm view happen server-side). A
 * document not ready yet shows a soft notice for 5 seconds instead of a failure.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import cfCss from '../styles/cf.css?url';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import { requireSession } from '../lib/auth.server';
import { Card } from '../components/Card';
import { COUNTIES } from '../../../domain/landreg/rules';
import { formatDay } from '../lib/dates';
import { countOf, nameCase, sentenceCase } from '../lib/words';
import { ApiError, api, apiFetch } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'Documente RGI · Geoportal cadastral' }];
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: cfCss },
];

/** How long the "not ready yet" notice stays (spec 4.4 UI: a 5 s soft notice). */
const BLOCKED_NOTICE_MS = 5000;

export function loader({ request, context }: LoaderFunctionArgs) {
  requireSession(request, context);
  return { year: new Date().getFullYear(), counties: [...COUNTIES].sort((a, b) => a.name.localeCompare(b.name, 'ro')) };
}

interface Application {
  applicationId: number;
  applicationNo: string;
  registrationDate: string;
  applicationType: string;
  status: string;
  uatName: string;
  cadastralNumber: string;
  applicant: string | null;
}
/** The sortable columns in their order, each with its head: a sort key is one of them. */
const COLUMNS = {
  applicationNo: 'Nr. cerere',
  registrationDate: 'Data',
  applicationType: 'Tip',
  status: 'Stare',
  uatName: 'UAT',
  cadastralNumber: 'Nr. cadastral',
} as const;
type SortKey = keyof typeof COLUMNS;
interface Sort {
  key: SortKey;
  desc: boolean;
}

const collator = new Intl.Collator('ro', { numeric: true, sensitivity: 'base' });

/** The list in the chosen order; equal keys keep the newest first. */
function sortApplications(items: Application[], sort: Sort): Application[] {
  const byDate = (a: Application, b: Application) => b.registrationDate.localeCompare(a.registrationDate);
  return [...items].sort((a, b) => {
    const c = sort.key === 'registrationDate' ? -byDate(a, b) : collator.compare(String(a[sort.key]), String(b[sort.key]));
    return (sort.desc ? -c : c) || byDate(a, b);
  });
}

interface Doc {
  documentPk: number;
  documentTypeId: number;
  documentType: string;
  applicationNo: string;
  available: boolean;
}

export default function RgiPage() {
  const d = useLoaderData<typeof loader>();
  const [workspaceId, setWorkspaceId] = useState<number | null>(null);
  const [year, setYear] = useState(d.year);
  const [apps, setApps] = useState<{ total: number; orgUnitId: number; items: Application[] } | null>(null);
  const [selected, setSelected] = useState<(Application & { history: Array<{ date: string; status: string }> }) | null>(null);
  const [docs, setDocs] = useState<{ downloadable: boolean; items: Doc[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // Newest first, as a registry is read.
  const [sort, setSort] = useState<Sort>({ key: 'registrationDate', desc: true });
  const rows = useMemo(() => (apps ? sortApplications(apps.items, sort) : []), [apps, sort]);
  const detailsRef = useRef<HTMLDivElement>(null);

  // An application opened from far down the list: its details come into view.
  useEffect(() => {
    if (selected) detailsRef.current?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), BLOCKED_NOTICE_MS);
    return () => clearTimeout(t);
  }, [notice]);

  async function loadApps() {
    if (!workspaceId) return;
    setLoading(true);
    setError(null);
    setSelected(null);
    setDocs(null);
    try {
      setApps(await api.post<{ total: number; orgUnitId: number; items: Application[] }>('/api/landreg/rgi/applications', { body: { workspaceId, year, size: 100 } }));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }

  async function open(a: Application) {
    setError(null);
    try {
      const [details, issued] = await Promise.all([
        api.get<Application & { history: Array<{ date: string; status: string }> }>('/api/landreg/rgi/details', { query: { applicationId: a.applicationId } }),
        api.get<{ downloadable: boolean; items: Doc[] }>('/api/landreg/rgi/issued-docs', { query: { applicationId: a.applicationId, workspaceId: workspaceId ?? undefined } }),
      ]);
      setSelected(details);
      setDocs(issued);
    } catch (err) {
      setError((err as Error).message);
    }
  }

  async function download(doc: Doc) {
    if (!selected || !workspaceId) return;
    const blocked = () => setNotice(`Documentul „${doc.documentType}” nu este încă disponibil la portal. Încercați din nou mai târziu.`);
    let res: Response;
    try {
      res = await apiFetch('get', '/api/landreg/rgi/download-doc', {
        query: { wid: workspaceId, aid: selected.applicationId, did: doc.documentPk, documentTypeId: doc.documentTypeId },
      });
    } catch (err) {
      if (err instanceof ApiError && err.body?.blocked) blocked();
      else setError((err as Error).message);
      return;
    }
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      const body = (await res.json()) as { blocked?: boolean; message?: string };
      if (body.blocked) blocked();
      else setError(body.message ?? 'Descărcarea a eșuat.');
      return;
    }
    const name = decodeURIComponent(/filename\*=UTF-8''([^;]+)/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'document.pdf');
    const href = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = href;
    a.download = name;
    a.click();
    URL.revokeObjectURL(href);
  }

  return (
    <div className="parcel-sync">
      <header className="page-head">
        <p className="page-head__eyebrow">Portalul de cadastru</p>
        <h1 className="page-head__title">Documente RGI</h1>
        <p className="page-head__sub">Cererile din registrul general de intrare ale unui județ și documentele emise pentru ele.</p>
      </header>
      <Card>
        <div className="form-row">
          <label className="field">
            <span>Județul</span>
            <select value={workspaceId ?? ''} onChange={(e) => setWorkspaceId(e.target.value ? Number(e.target.value) : null)} data-testid="rgi-county">
              <option value="">Alegeți județul…</option>
              {d.counties.map((c) => (
                <option key={c.workspacePk} value={c.workspacePk}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Anul</span>
            <input type="number" min={2000} max={2099} value={year} onChange={(e) => setYear(Number(e.target.value))} data-testid="rgi-year" />
          </label>
          <button type="button" className="btn btn--primary" disabled={!workspaceId || loading} onClick={() => void loadApps()} data-testid="rgi-load">
            {loading ? 'Se încarcă…' : 'Afișează cererile'}
          </button>
        </div>
        {error ? <p className="cf-notice cf-notice--fail" role="alert">{error}</p> : null}
        {notice ? (
          <p className="cf-notice cf-notice--ok" role="status" data-testid="rgi-blocked">
            {notice}
          </p>
        ) : null}
      </Card>

      <div className={selected ? 'rgi-layout rgi-layout--open' : 'rgi-layout'}>
        {apps ? (
          <Card title={<>{countOf(apps.total, 'cerere', 'cereri')} în {year}</>}>
            {apps.items.length === 0 ? <p className="prose prose--muted">Nicio cerere în acest an.</p> : null}
            <div className="table-wrap">
              <table className="table" data-testid="rgi-applications">
                <thead>
                  <tr>
                    {(Object.entries(COLUMNS) as Array<[SortKey, string]>).map(([key, label]) => (
                      <th key={key} aria-sort={sort.key === key ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                        <button
                          type="button"
                          className="rgi-sort"
                          onClick={() => setSort((s) => ({ key, desc: s.key === key ? !s.desc : key === 'registrationDate' }))}
                          data-testid={`rgi-sort-${key}`}
                        >
                          {label}
                          <span aria-hidden="true">{sort.key === key ? (sort.desc ? ' ▼' : ' ▲') : ''}</span>
                        </button>
                      </th>
                    ))}
                    <th>Solicitant</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((a) => (
                    <tr key={a.applicationId} className={selected?.applicationId === a.applicationId ? 'is-selected' : undefined}>
                      <td>
                        <button type="button" className="link" onClick={() => void open(a)}>
                          {a.applicationNo}
                        </button>
                      </td>
                      <td>{formatDay(a.registrationDate)}</td>
                      <td>{a.applicationType}</td>
                      <td>{sentenceCase(a.status)}</td>
                      <td>{nameCase(a.uatName)}</td>
                      <td>{a.cadastralNumber}</td>
                      <td>{a.applicant ? nameCase(a.applicant) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Card>
        ) : null}

        {selected ? (
          <div className="rgi-layout__details" ref={detailsRef}>
            <Card title={<>Cererea {selected.applicationNo}</>} testId="rgi-details">
              <p className="prose">
                {selected.applicationType} · {nameCase(selected.uatName)} · nr. cadastral {selected.cadastralNumber} · {sentenceCase(selected.status)}
              </p>
              <ul className="prose prose--muted">
                {selected.history.map((h, i) => (
                  <li key={i}>
                    {formatDay(h.date)}: {sentenceCase(h.status)}
                  </li>
                ))}
              </ul>
              <h3>Documente emise</h3>
              {docs && docs.items.length === 0 ? <p className="prose prose--muted">Niciun document emis.</p> : null}
              {docs && !docs.downloadable && docs.items.length > 0 ? (
                <p className="prose prose--muted" data-testid="rgi-no-download">
                  Documentele emise poartă numele solicitantului; contul dumneavoastră nu are acces la date personale, deci nu le poate descărca.
                </p>
              ) : null}
              <ul className="cf-epay__parcels">
                {(docs?.items ?? []).map((doc) => (
                  <li key={doc.documentPk}>
                    {doc.documentType}{' '}
                    {/* After the document's type ("Încheiere", "Certificat"): words that agree with any of them. */}
                    <span className={`cf-state ${doc.available ? 'cf-state--valid' : 'cf-state--processing'}`}>{doc.available ? 'gata de descărcare' : 'în pregătire'}</span>{' '}
                    {docs?.downloadable ? (
                      <button type="button" className="btn" onClick={() => void download(doc)}>
                        Descarcă
                      </button>
                    ) : null}
                  </li>
                ))}
              </ul>
              <button type="button" className="btn btn--secondary" onClick={() => setSelected(null)}>
                Închide
              </button>
            </Card>
          </div>
        ) : null}
      </div>
    </div>
  );
}
