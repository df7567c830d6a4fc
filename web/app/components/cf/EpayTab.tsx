/**
 * The `epay` tab of /parcel-sync (spec 4.3): order CF extracts for one parcel or many through the
 * certificate-portal account, with the live credit balance, the one-credit notice, the state of
 * each parcel's extract (none / processing at step n / valid until / expired) and the orders list
 * with downloads. Talks to /api/cfportal/* and refreshes itself while anything is in progress.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { UatPicker } from '../sync/UatPicker';
import type { UatChoice } from '../sync/uatSearch';
import { Card } from '../Card';

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
  expiresAt: string | null;
  downloadUrl: string | null;
  error: string | null;
  createdAt: string;
}

interface Credits {
  credits: number;
  reserved: number;
  available: number;
}

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

const date = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString('ro-RO') : '—');

async function api<T>(url: string, init?: RequestInit): Promise<{ ok: boolean; status: number; body: T & { message?: string } }> {
  const res = await fetch(url, { headers: { accept: 'application/json', ...(init?.body ? { 'content-type': 'application/json' } : {}) }, ...init });
  const body = (await res.json().catch(() => ({}))) as T & { message?: string };
  return { ok: res.ok, status: res.status, body };
}

export function ExtractState({ e }: { e: Extract | null }) {
  if (!e) return <span className="cf-state cf-state--none">fără extras · comanda costă 1 credit</span>;
  if (e.state === 'processing') {
    return (
      <span className="cf-state cf-state--processing">
        în lucru · pasul {e.stepNo}/{e.stepsTotal}: {STEP_LABELS[e.currentStep ?? ''] ?? e.currentStep}
      </span>
    );
  }
  if (e.state === 'valid') return <span className="cf-state cf-state--valid">valabil până la {date(e.expiresAt)}</span>;
  if (e.state === 'expired') return <span className="cf-state cf-state--expired">expirat ({date(e.expiresAt)}) · o comandă nouă costă 1 credit</span>;
  return <span className="cf-state cf-state--failed">eșuat{e.error ? `: ${e.error}` : ''}</span>;
}

export function EpayTab({ initialUat, initialCad }: { initialUat: UatChoice | null; initialCad: string }) {
  const [uat, setUat] = useState<UatChoice | null>(initialUat);
  const [cads, setCads] = useState(initialCad);
  const [force, setForce] = useState(false);
  const [credits, setCredits] = useState<Credits | { error: string } | null>(null);
  const [items, setItems] = useState<Extract[] | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'ok' | 'fail'; text: string } | null>(null);

  const refresh = useCallback(async () => {
    const [c, o] = await Promise.all([api<Credits>('/api/cfportal/credits'), api<{ items: Extract[] }>('/api/cfportal/orders?limit=100')]);
    setCredits(c.ok ? c.body : { error: c.body.message ?? 'Creditele nu pot fi citite.' });
    if (o.ok) {
      setItems(o.body.items);
      setListError(null);
    } else setListError(o.body.message ?? 'Lista comenzilor nu poate fi citită.');
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);
  const processing = items?.some((e) => e.state === 'processing') ?? false;
  useEffect(() => {
    if (!processing) return;
    const t = setInterval(() => void refresh(), 3000);
    return () => clearInterval(t);
  }, [processing, refresh]);

  const numbers = useMemo(
    () => [...new Set(cads.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean))],
    [cads],
  );
  /** The newest extract of each parcel of the form, for its state line. */
  const latest = (nr: string) => items?.find((e) => e.nrCadastral === nr && (!uat || e.siruta === uat.siruta)) ?? null;

  async function order() {
    if (!uat || numbers.length === 0) return;
    setBusy(true);
    setNotice(null);
    const r = await api<{ orderId: string; extracts: Extract[]; hits?: Array<{ nrCadastral: string; expiresAt: string }>; credits?: number; needed?: number }>(
      '/api/cfportal/order',
      { method: 'POST', body: JSON.stringify({ parcels: numbers.map((n) => ({ nrCadastral: n, siruta: uat.siruta, workspacePk: uat.workspacePk ?? undefined })), force }) },
    );
    setBusy(false);
    if (r.ok) {
      setNotice({ kind: 'ok', text: `Comanda a fost pusă în coadă: ${r.body.extracts.length} ${r.body.extracts.length === 1 ? 'extras' : 'extrase'}.` });
    } else if (r.status === 409 && r.body.hits) {
      const list = r.body.hits.map((h) => `${h.nrCadastral} (valabil până la ${date(h.expiresAt)})`).join(', ');
      setNotice({ kind: 'ok', text: `Extras valabil deja existent: ${list}. Bifați „Comandă din nou” pentru un extras nou (1 credit).` });
    } else {
      setNotice({ kind: 'fail', text: r.body.message ?? `Comanda a eșuat (${r.status}).` });
    }
    await refresh();
  }

  const balance = credits && 'credits' in credits ? credits : null;
  return (
    <div className="cf-epay" data-testid="epay">
      <Card>
        <div className="cf-epay__credits" data-testid="cf-credits">
          {credits === null ? 'Se citesc creditele…' : null}
          {credits && 'error' in credits ? <span className="cf-state cf-state--failed">{credits.error}</span> : null}
          {balance ? (
            <>
              Credite disponibile: <strong>{balance.available}</strong>
              {balance.reserved ? ` (${balance.credits} în cont, ${balance.reserved} rezervate pentru comenzile din coadă)` : ''}
            </>
          ) : null}
        </div>
        <p className="prose prose--muted">Fiecare extras CF costă 1 credit. Un extras emis este valabil 30 de zile.</p>
        <div className="form-row">
          <UatPicker value={uat} onPick={setUat} />
          <label className="field field--grow">
            <span>Numere cadastrale (unul sau mai multe, separate prin virgulă)</span>
            <input value={cads} onChange={(e) => setCads(e.target.value)} placeholder="ex. 50123, 50124" data-testid="cf-cads" />
          </label>
        </div>
        {numbers.length > 0 ? (
          <ul className="cf-epay__parcels" data-testid="cf-parcels">
            {numbers.map((n) => (
              <li key={n}>
                <strong>{n}</strong> <ExtractState e={latest(n)} />
              </li>
            ))}
          </ul>
        ) : null}
        <div className="form-row">
          <label className="check">
            <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Comandă din nou chiar dacă există un extras valabil
          </label>
          <button type="button" className="btn btn--primary" disabled={busy || !uat || numbers.length === 0} onClick={() => void order()} data-testid="cf-order">
            {busy ? 'Se trimite…' : `Comandă ${numbers.length || ''} ${numbers.length === 1 ? 'extras' : 'extrase'} (${numbers.length} ${numbers.length === 1 ? 'credit' : 'credite'})`}
          </button>
        </div>
        {notice ? (
          <p className={`cf-notice cf-notice--${notice.kind}`} role="status" data-testid="cf-notice">
            {notice.text}
          </p>
        ) : null}
      </Card>

      <Card title="Comenzi">
        {listError ? <p className="cf-state cf-state--failed">{listError}</p> : null}
        {items === null && !listError ? <p className="prose prose--muted">Se încarcă…</p> : null}
        {items && items.length === 0 ? <p className="prose prose--muted">Nu există încă extrase comandate.</p> : null}
        {items && items.length > 0 ? (
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
                  <td>{new Date(e.createdAt).toLocaleString('ro-RO')}</td>
                  <td>{e.downloadUrl ? <a href={e.downloadUrl}>Descarcă PDF</a> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Card>
    </div>
  );
}
