/**
 * The `epay` tab of /parcel-sync (spec 4.3): order CF extracts for one parcel or many. Office
 * users order through the office's certificate-portal account (/api/cfportal/*): the account in
 * use and its credits, each asked parcel's state from its own query (none / processing at step n
 * / valid until / expired, whoever ordered it), the caller's orders paged (an admin sees everyone's,
 * with a user filter), cancel while pending. Pilot users of the central API (`central`) order
 * through /api/cf/* under their own token, never the office's account, and see their central
 * orders with their PDFs. Refreshes itself while anything is in progress.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { UatPicker } from '../sync/UatPicker';
import type { UatChoice } from '../sync/uatSearch';
import { Card } from '../Card';
import { formatWhen } from '../../lib/dates';
import { EXTRACT_STATUS_LABELS, countOf } from '../../lib/words';
import { ApiError, api, apiUrl } from '../../lib/api';

interface Extract {
  id: string;
  orderId: string | null;
  nrCadastral: string;
  siruta: number | null;
  uatName: string | null;
  cfNumber: string | null;
  status: string;
  state: 'processing' | 'valid' | 'expired' | 'failed';
  currentStep: string | null;
  stepNo: number;
  stepsTotal: number;
  version: number;
  userId: string | null;
  expiresAt: string | null;
  downloadUrl: string | null;
  error: string | null;
  reconcileAt: string | null;
  cancellable: boolean;
  createdAt: string;
}

/** An order of the central API (its own shape). */
interface CentralOrder {
  id: string;
  siruta: number;
  cadastralRef: string;
  uatName: string;
  status: 'processing' | 'completed' | 'cancelled' | 'failed';
  version: number;
  expiresAt: string | null;
  documentName: string | null;
  createdAt: string;
}

interface Credits {
  account: string;
  credits: number;
  reserved: number;
  available: number;
}

/** One asked parcel's state, on either path. */
type ParcelState = { kind: 'none' } | { kind: 'extract'; e: Extract } | { kind: 'central'; state: 'processing' | 'valid'; expiresAt: string | null; pdf: string | null };

const PAGE = 20;

const STEP_LABELS: Record<string, string> = {
  queued: 'în coadă',
  credits: 'verificare credite',
  cart: 'adăugare în coș',
  metadata: 'salvare date comandă',
  submit: 'trimitere comandă',
  poll: 'așteptare portal',
  documents: 'preluare documente',
  download: 'descărcare PDF',
  store: 'arhivare PDF',
  notify: 'notificare',
  done: 'gata',
};

const CENTRAL_STATUS: Record<CentralOrder['status'], string> = {
  processing: 'în lucru',
  completed: 'emis',
  cancelled: 'anulat',
  failed: 'eșuat',
};

const date = (iso: string | null) => formatWhen(iso, 'date');
const centralPdf = (id: string) => apiUrl('/api/cf/{id}/pdf', { id });

export function ExtractState({ e }: { e: Extract | null }) {
  if (!e) return <span className="cf-state cf-state--none">fără extras · comanda costă 1 credit</span>;
  if (e.state === 'processing') {
    if (e.reconcileAt) return <span className="cf-state cf-state--processing">în verificare la portal · un administrator confirmă plata</span>;
    return (
      <span className="cf-state cf-state--processing">
        {e.cancellable
          ? 'în coadă · se poate anula'
          : `în lucru · pasul ${e.stepNo}/${e.stepsTotal}: ${STEP_LABELS[e.currentStep ?? ''] ?? EXTRACT_STATUS_LABELS[e.status] ?? 'în lucru'}`}
      </span>
    );
  }
  if (e.state === 'valid') return <span className="cf-state cf-state--valid">valabil până la {date(e.expiresAt)}</span>;
  if (e.state === 'expired') return <span className="cf-state cf-state--expired">expirat ({date(e.expiresAt)}) · o comandă nouă costă 1 credit</span>;
  if (e.status === 'cancelled') return <span className="cf-state cf-state--expired">anulat</span>;
  // Failed after its submit (domain/cfportal/extracts.ts failBatchAfterError): possibly paid.
  if (e.reconcileAt) return <span className="cf-state cf-state--failed">eșuat după trimitere · poate fi plătit; un administrator verifică în portal</span>;
  return <span className="cf-state cf-state--failed">eșuat{e.error ? `: ${e.error}` : ''}</span>;
}

function ParcelLine({ s }: { s: ParcelState | undefined }) {
  if (!s) return <span className="cf-state">se verifică…</span>;
  if (s.kind === 'none') return <ExtractState e={null} />;
  if (s.kind === 'extract') {
    return (
      <>
        <ExtractState e={s.e} /> {s.e.downloadUrl ? <a href={s.e.downloadUrl}>Descarcă PDF</a> : null}
      </>
    );
  }
  if (s.state === 'processing') return <span className="cf-state cf-state--processing">în lucru la API-ul central</span>;
  return (
    <>
      <span className="cf-state cf-state--valid">valabil până la {date(s.expiresAt)}</span> {s.pdf ? <a href={s.pdf}>Descarcă PDF</a> : null}
    </>
  );
}

/** A parcel's state on the central path: the shared catalogue of valid extracts, then the caller's own orders in progress. */
async function centralState(nr: string, siruta: number): Promise<ParcelState> {
  const [catalog, mine] = await Promise.all([
    api.get<{ items: Array<{ orderId: string; siruta: number; cadastralRef: string; expiresAt: string }> }>('/api/cf/catalog'),
    // The caller's own orders only sharpen the answer: without them the catalogue still tells.
    api.get<{ items: CentralOrder[] }>('/api/cf/orders', { query: { status: 'processing', limit: 100 } }).catch(() => null),
  ]);
  if (mine?.items.some((o) => o.siruta === siruta && o.cadastralRef === nr)) return { kind: 'central', state: 'processing', expiresAt: null, pdf: null };
  const hit = catalog.items.find((i) => i.siruta === siruta && i.cadastralRef === nr);
  return hit ? { kind: 'central', state: 'valid', expiresAt: hit.expiresAt, pdf: centralPdf(hit.orderId) } : { kind: 'none' };
}

export function EpayTab({
  initialUat,
  initialCad,
  isAdmin = false,
  central = false,
  userId,
}: {
  initialUat: UatChoice | null;
  initialCad: string;
  isAdmin?: boolean;
  /** A pilot user of the central API: orders go through /api/cf/* under the user's own token. */
  central?: boolean;
  userId: string;
}) {
  const [uat, setUat] = useState<UatChoice | null>(initialUat);
  const [cads, setCads] = useState(initialCad);
  const [force, setForce] = useState(false);
  const [credits, setCredits] = useState<Credits | { error: string } | null>(null);
  const [items, setItems] = useState<Extract[] | null>(null);
  const [centralItems, setCentralItems] = useState<CentralOrder[] | null>(null);
  const [total, setTotal] = useState(0);
  const [offset, setOffset] = useState(0);
  const [who, setWho] = useState('');
  const [orderers, setOrderers] = useState<Array<{ userId: string; email: string | null; name: string | null; count: number }>>([]);
  const [listError, setListError] = useState<string | null>(null);
  const [states, setStates] = useState<Record<string, ParcelState | { error: string }>>({});
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'ok' | 'fail'; text: string; links?: Array<{ label: string; href: string }> } | null>(null);

  const numbers = useMemo(() => [...new Set(cads.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean))], [cads]);
  const siruta = uat?.siruta ?? null;

  /** Each asked parcel's state from its own query: an older extract is never missed. */
  const refreshParcels = useCallback(async () => {
    if (!siruta || numbers.length === 0) return setStates({});
    const entries = await Promise.all(
      numbers.map(async (nr): Promise<[string, ParcelState | { error: string }]> => {
        try {
          if (central) return [nr, await centralState(nr, siruta)];
          const r = await api.get<{ extract: Extract | null }>('/api/cfportal/parcel', { query: { nrCad: nr, siruta } });
          return [nr, r.extract ? { kind: 'extract', e: r.extract } : { kind: 'none' }];
        } catch (err) {
          return [nr, { error: (err as Error).message }];
        }
      }),
    );
    setStates(Object.fromEntries(entries));
  }, [numbers, siruta, central]);

  const refreshList = useCallback(async () => {
    if (central) {
      try {
        const o = await api.get<{ items: CentralOrder[]; total: number }>('/api/cf/orders', { query: { limit: PAGE, offset } });
        setCentralItems(o.items);
        setTotal(o.total);
        return setListError(null);
      } catch (err) {
        return setListError((err as Error).message);
      }
    }
    const [c, o] = await Promise.allSettled([
      api.get<Credits>('/api/cfportal/credits'),
      api.get<{ items: Extract[]; total: number }>('/api/cfportal/orders', { query: { limit: PAGE, offset, userId: isAdmin && who ? who : undefined } }),
    ]);
    setCredits(c.status === 'fulfilled' ? c.value : { error: (c.reason as Error).message });
    if (o.status === 'rejected') return setListError((o.reason as Error).message);
    setItems(o.value.items);
    setTotal(o.value.total);
    setListError(null);
  }, [central, offset, isAdmin, who]);

  const refresh = useCallback(() => Promise.all([refreshList(), refreshParcels()]), [refreshList, refreshParcels]);

  useEffect(() => {
    void refreshList();
  }, [refreshList]);
  useEffect(() => {
    // Typing a list of numbers asks once the typing pauses.
    const t = setTimeout(() => void refreshParcels(), 300);
    return () => clearTimeout(t);
  }, [refreshParcels]);
  useEffect(() => {
    if (!isAdmin || central) return;
    // Without the list the filter is simply not offered.
    api.get<{ items: typeof orderers }>('/api/cfportal/orderers').then((r) => setOrderers(r.items), () => undefined);
  }, [isAdmin, central]);

  const processing =
    (items?.some((e) => e.state === 'processing') ?? false) ||
    (centralItems?.some((o) => o.status === 'processing') ?? false) ||
    Object.values(states).some((s) => ('kind' in s && s.kind === 'extract' && s.e.state === 'processing') || ('kind' in s && s.kind === 'central' && s.state === 'processing'));
  useEffect(() => {
    if (!processing) return;
    const t = setInterval(() => void refresh(), 3000);
    return () => clearInterval(t);
  }, [processing, refresh]);

  async function orderLocal() {
    try {
      const r = await api.post<{ extracts: Extract[] }>('/api/cfportal/order', {
        body: { parcels: numbers.map((n) => ({ nrCadastral: n, siruta: uat!.siruta, workspacePk: uat!.workspacePk ?? undefined })), force },
      });
      setNotice({ kind: 'ok', text: `Comanda a fost pusă în coadă: ${countOf(r.extracts.length, 'extras', 'extrase')}.` });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const hits = err.body?.hits as Array<{ nrCadastral: string; expiresAt: string; downloadUrl: string }> | undefined;
      if (err.status === 409 && err.code === 'catalog_hit' && hits) {
        setNotice({
          kind: 'ok',
          text: 'Există deja un extras valabil. Descărcați-l sau bifați „Comandă din nou” pentru un extras nou (1 credit):',
          links: hits.map((h) => ({ label: `${h.nrCadastral} (valabil până la ${date(h.expiresAt)})`, href: h.downloadUrl })),
        });
      } else if (err.status === 409 && err.code === 'order_in_progress') {
        const list = ((err.body?.inProgress as Array<{ nrCadastral: string }> | undefined) ?? []).map((p) => p.nrCadastral).join(', ');
        setNotice({ kind: 'fail', text: `Extrasul este deja comandat și în lucru${list ? ` (${list})` : ''}; nu se comandă a doua oară.` });
      } else {
        setNotice({ kind: 'fail', text: err.message });
      }
    }
  }

  /** One order per parcel at the central API, under the user's own token. */
  async function orderCentral() {
    const placed: string[] = [];
    const links: Array<{ label: string; href: string }> = [];
    const problems: string[] = [];
    for (const nr of numbers) {
      try {
        await api.post('/api/cf/order', { body: { siruta: uat!.siruta, cadastralRef: nr, force } });
        placed.push(nr);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const extract = err.body?.extract as CentralOrder | undefined;
        if (err.status === 409 && err.code === 'catalog_hit' && extract) {
          links.push({ label: `${nr} (valabil până la ${date(extract.expiresAt)})`, href: centralPdf(extract.id) });
        } else if (err.status === 409 && err.code === 'order_in_progress') problems.push(`${nr}: deja comandat și în lucru`);
        else problems.push(`${nr}: ${err.message}`);
      }
    }
    const parts = [placed.length ? `Comandat prin API-ul central: ${placed.join(', ')}.` : '', problems.join('; ')].filter(Boolean);
    if (links.length) parts.push('Există deja un extras valabil (bifați „Comandă din nou” pentru unul nou):');
    setNotice({ kind: problems.length && !placed.length && !links.length ? 'fail' : 'ok', text: parts.join(' '), links });
  }

  async function order() {
    if (!uat || numbers.length === 0) return;
    setBusy(true);
    setNotice(null);
    try {
      await (central ? orderCentral() : orderLocal());
    } finally {
      setBusy(false);
    }
    await refresh();
  }

  async function cancel(path: '/api/cfportal/extracts/{id}' | '/api/cf/{id}', id: string) {
    try {
      await api.patch(path, { params: { id }, body: { status: 'cancelled' } });
      setNotice({ kind: 'ok', text: 'Comanda a fost anulată; creditul nu se mai consumă.' });
    } catch (err) {
      setNotice({ kind: 'fail', text: (err as Error).message });
    }
    await refresh();
  }

  const balance = credits && 'credits' in credits ? credits : null;
  const pages = Math.max(1, Math.ceil(total / PAGE));
  return (
    <div className="cf-epay" data-testid="epay">
      <Card>
        {central ? (
          <p className="cf-epay__credits" data-testid="cf-account">
            Comenzile dumneavoastră merg prin API-ul central, cu contul dumneavoastră (nu cu contul biroului).
          </p>
        ) : (
          <div className="cf-epay__credits" data-testid="cf-credits">
            {credits === null ? 'Se citesc creditele…' : null}
            {credits && 'error' in credits ? <span className="cf-state cf-state--failed">{credits.error}</span> : null}
            {balance ? (
              <>
                <span data-testid="cf-account">
                  Cont portal: <strong>{balance.account}</strong>
                </span>{' '}
                · Credite disponibile: <strong>{balance.available}</strong>
                {balance.reserved ? ` (${balance.credits} în cont, ${balance.reserved} rezervate pentru comenzile din coadă)` : ''}
              </>
            ) : null}
          </div>
        )}
        <p className="prose prose--muted">Fiecare extras CF costă 1 credit. Un extras emis este valabil 30 de zile.</p>
        <div className="form-row">
          <UatPicker value={uat} onPick={setUat} />
          <label className="field field--grow">
            <span>Numere cadastrale (unul sau mai multe, separate prin virgulă)</span>
            <input value={cads} onChange={(e) => setCads(e.target.value)} placeholder="ex. 50123, 50124" data-testid="cf-cads" />
          </label>
        </div>
        {numbers.length > 0 && uat ? (
          <ul className="cf-epay__parcels" data-testid="cf-parcels">
            {numbers.map((n) => {
              const s = states[n];
              return (
                <li key={n}>
                  <strong>{n}</strong> {s && 'error' in s ? <span className="cf-state cf-state--failed">{s.error}</span> : <ParcelLine s={s} />}
                </li>
              );
            })}
          </ul>
        ) : null}
        <div className="form-row">
          <label className="check">
            <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Comandă din nou chiar dacă există un extras valabil
          </label>
          <button type="button" className="btn btn--primary" disabled={busy || !uat || numbers.length === 0} onClick={() => void order()} data-testid="cf-order">
            {busy ? 'Se trimite…' : numbers.length === 0 ? 'Comandă extrase' : `Comandă ${countOf(numbers.length, 'extras', 'extrase')} (${countOf(numbers.length, 'credit', 'credite')})`}
          </button>
        </div>
        {notice ? (
          <div className={`cf-notice cf-notice--${notice.kind}`} role="status" data-testid="cf-notice">
            {notice.text}
            {notice.links?.length ? (
              <ul className="cf-epay__parcels">
                {notice.links.map((l) => (
                  <li key={l.href}>
                    <a href={l.href}>Descarcă PDF {l.label}</a>
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </Card>

      <Card
        title={central ? 'Comenzile mele prin API-ul central' : isAdmin ? 'Comenzi' : 'Comenzile mele'}
        actions={
          isAdmin && !central ? (
            <label className="field">
              <span>Utilizator</span>
              <select
                value={who}
                onChange={(e) => {
                  setWho(e.target.value);
                  setOffset(0);
                }}
                data-testid="cf-user-filter"
              >
                <option value="">Toți utilizatorii</option>
                {orderers.map((o) => (
                  <option key={o.userId} value={o.userId}>
                    {o.name ?? o.email ?? o.userId} ({o.count})
                  </option>
                ))}
              </select>
            </label>
          ) : undefined
        }
      >
        {listError ? <p className="cf-state cf-state--failed">{listError}</p> : null}
        {(central ? centralItems : items) === null && !listError ? <p className="prose prose--muted">Se încarcă…</p> : null}
        {(central ? centralItems : items)?.length === 0 ? <p className="prose prose--muted">Nu există încă extrase comandate.</p> : null}
        {!central && items && items.length > 0 ? (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Extrase comandate">
            <table className="table" data-testid="cf-orders">
              <thead>
                <tr>
                  <th>Nr. cadastral</th>
                  <th>UAT</th>
                  <th>Nr. CF</th>
                  <th>Versiune</th>
                  <th>Stare</th>
                  <th>Comandat</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {items.map((e) => (
                  <tr key={e.id}>
                    <td>{e.nrCadastral}</td>
                    <td>{e.uatName ?? e.siruta ?? '—'}</td>
                    <td>{e.cfNumber ?? '—'}</td>
                    <td>{e.version}</td>
                    <td>
                      <ExtractState e={e} />
                    </td>
                    <td>{formatWhen(e.createdAt, 'dateTimeSeconds')}</td>
                    <OrderActions
                      pdf={e.downloadUrl}
                      onCancel={e.cancellable && (e.userId === userId || isAdmin) ? () => void cancel('/api/cfportal/extracts/{id}', e.id) : null}
                    />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {central && centralItems && centralItems.length > 0 ? (
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Extrase comandate">
            <table className="table" data-testid="cf-orders">
              <thead>
                <tr>
                  <th>Nr. cadastral</th>
                  <th>UAT</th>
                  <th>Versiune</th>
                  <th>Stare</th>
                  <th>Valabil până la</th>
                  <th>Comandat</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {centralItems.map((o) => (
                  <tr key={o.id}>
                    <td>{o.cadastralRef}</td>
                    <td>{o.uatName}</td>
                    <td>{o.version}</td>
                    <td>
                      <span className={`cf-state cf-state--${o.status === 'completed' ? 'valid' : o.status === 'processing' ? 'processing' : o.status === 'failed' ? 'failed' : 'expired'}`}>
                        {CENTRAL_STATUS[o.status] ?? o.status}
                      </span>
                    </td>
                    <td>{date(o.expiresAt)}</td>
                    <td>{formatWhen(o.createdAt, 'dateTimeSeconds')}</td>
                    <OrderActions pdf={o.status === 'completed' ? centralPdf(o.id) : null} onCancel={o.status === 'processing' ? () => void cancel('/api/cf/{id}', o.id) : null} />
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        {total > PAGE ? (
          <div className="form-row" data-testid="cf-pager">
            <button type="button" className="btn" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Înapoi
            </button>
            <span>
              Pagina {Math.floor(offset / PAGE) + 1} din {pages} ({countOf(total, 'extras', 'extrase')})
            </span>
            <button type="button" className="btn" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Înainte
            </button>
          </div>
        ) : null}
      </Card>
    </div>
  );
}

/** An order's last cell: its PDF once ready, and cancelling while the order can still be stopped. */
function OrderActions({ pdf, onCancel }: { pdf: string | null; onCancel: (() => void) | null }) {
  return (
    <td>
      {pdf ? <a href={pdf}>Descarcă PDF</a> : null}
      {onCancel ? (
        <button type="button" className="btn" data-testid="cf-cancel" onClick={onCancel}>
          Anulează
        </button>
      ) : null}
    </td>
  );
}
