/**
 * /registratura: the registry (issue 17). The loader reads through the same domain services and
 * viewer rules as the API; every change goes through the API (`/api/registratura/...`) from the
 * browser, then the loader data is revalidated. `?id=` opens an entry: its number large, the
 * edit form, attachments (upload with progress, download), the status tracking block with its
 * history and colour badges, and the entry's change history.
 */
import { useState, type FormEvent } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useRevalidator, useSearchParams } from '@remix-run/react';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import registryCss from '../styles/registry.css?url';
import { requireSession } from '../lib/auth.server';
import { registryPageData, type HistoryItem, type RegistryEntry } from '../lib/registry.server';
import { REGISTRY_LIST_BOUNDS, STATUS_CLASS, STATUS_LABEL } from '../../../domain/registry/rules';
import { Card } from '../components/Card';
import type { Company } from '../../../domain/auth/rules';
import { formatWhen, todayInRomania } from '../lib/dates';
import { countOf } from '../lib/words';
import { describeChange, FIELD_LABEL } from '../lib/registryWords';
import { formatBytes } from '../lib/tilesFormat';
import { companyLabel } from '../lib/companies';
import { api, apiUrl, uploadError } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'Registratură' }];
export const links: LinksFunction = () => [
  // Form fields and notices are shared with the parcel-sync pages.
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: registryCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  return registryPageData(context.services.registry, auth, new URL(request.url));
}

const DIRECTION_LABEL: Record<string, string> = { intrare: 'Intrare', iesire: 'Ieșire' };
const ACTION_LABEL: Record<string, string> = {
  create: 'Înregistrare',
  update: 'Modificare',
  renumber: 'Număr nou',
  delete: 'Ștergere',
  'attachment-add': 'Atașament adăugat',
  'attachment-remove': 'Atașament șters',
  'attachment-migrate': 'Atașament mutat în stocare',
  'status-change': 'Stare la autoritate',
};

const fmtDate = (s: string | null) => (s ? formatWhen(`${s.slice(0, 10)}T12:00:00Z`, 'date') : '—');
const fmtTime = (s: string | null) => formatWhen(s, 'dateTimeSeconds');

/** Days from today (Bucharest) to the deadline. */
function daysLeft(deadline: string): number {
  const today = todayInRomania();
  return Math.round((Date.parse(deadline) - Date.parse(today)) / 86_400_000);
}

function DeadlineBadge({ deadline }: { deadline: string | null }) {
  if (!deadline) return null;
  const d = daysLeft(deadline);
  const cls = d < 0 ? 'badge--red' : d <= 3 ? 'badge--amber' : 'badge--blue';
  const text = d < 0 ? `depășit cu ${countOf(-d, 'zi', 'zile')}` : d === 0 ? 'azi' : `în ${countOf(d, 'zi', 'zile')}`;
  return <span className={`badge ${cls}`} title={`Termen: ${fmtDate(deadline)}`}>Termen {text}</span>;
}

function StatusBadge({ status, statusClass }: { status: string | null; statusClass: string | null }) {
  if (!status) return <span className="badge">neverificată</span>;
  return <span className={`badge badge--${statusClass ?? 'gray'}`}>{(STATUS_LABEL as Record<string, string>)[status] ?? status}</span>;
}

interface FormState {
  company: string;
  direction: string;
  date: string;
  subject: string;
  sender: string;
  recipient: string;
  documentType: string;
  notes: string;
  deadline: string;
  assignee: string;
  trackAuthority: string;
  trackRequest: string;
  trackPetitioner: string;
}

function formFrom(e: RegistryEntry | null, company: string): FormState {
  return {
    company: e?.company ?? company,
    direction: e?.direction ?? 'intrare',
    date: e?.date ?? '',
    subject: e?.subject ?? '',
    sender: e?.sender ?? '',
    recipient: e?.recipient ?? '',
    documentType: e?.documentType ?? '',
    notes: e?.notes ?? '',
    deadline: e?.deadline ?? '',
    assignee: e?.assignee ?? '',
    trackAuthority: e?.tracking?.authority ?? '',
    trackRequest: e?.tracking?.requestNumber ?? '',
    trackPetitioner: e?.tracking?.petitionerName ?? '',
  };
}

function EntryForm({ entry, writable, restricted, onSaved }: { entry: RegistryEntry | null; writable: string[]; restricted: boolean; onSaved: (id: string) => void }) {
  const [f, setF] = useState<FormState>(() => formFrom(entry, writable[0] ?? ''));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof FormState) => (ev: { target: { value: string } }) => setF((s) => ({ ...s, [k]: ev.target.value }));
  const opt = (v: string) => (v.trim() === '' ? null : v.trim());

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = {
      company: f.company,
      direction: f.direction,
      subject: f.subject,
      documentType: opt(f.documentType),
      notes: opt(f.notes),
      deadline: opt(f.deadline),
      assignee: opt(f.assignee),
      ...(f.date ? { date: f.date } : {}),
      // Restricted viewers never see these fields; sending nothing keeps what is stored.
      ...(restricted ? {} : { sender: opt(f.sender), recipient: opt(f.recipient) }),
      tracking: f.trackAuthority && f.trackRequest
        ? { authority: f.trackAuthority, requestNumber: f.trackRequest, ...(restricted ? {} : { petitionerName: opt(f.trackPetitioner) }) }
        : null,
    };
    try {
      const saved = entry
        ? await api.put<RegistryEntry>('/api/registratura/entries/{id}', { params: { id: entry.id }, body, fieldLabels: FIELD_LABEL })
        : await api.post<RegistryEntry>('/api/registratura/entries', { body, fieldLabels: FIELD_LABEL });
      onSaved(saved.id);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const renumberWarning = entry && (f.company !== entry.company || f.direction !== entry.direction || (f.date && f.date.slice(0, 4) !== String(entry.year)));
  return (
    <form className="reg-form" onSubmit={(e) => void submit(e)} data-testid="registry-form">
      <div className="reg-form__grid">
        <label className="field">
          <span className="field__label">Companie</span>
          <select value={f.company} onChange={set('company')} required>
            {writable.map((c) => <option key={c} value={c}>{companyLabel(c as Company)}</option>)}
          </select>
        </label>
        <label className="field">
          <span className="field__label">Direcție</span>
          <select value={f.direction} onChange={set('direction')}>
            <option value="intrare">Intrare</option>
            <option value="iesire">Ieșire</option>
          </select>
        </label>
        <label className="field">
          <span className="field__label">Data</span>
          <input type="date" value={f.date} onChange={set('date')} />
        </label>
        <label className="field">
          <span className="field__label">Tip document</span>
          <input value={f.documentType} onChange={set('documentType')} maxLength={100} placeholder="adresă, cerere, aviz…" />
        </label>
        <label className="field field--wide">
          <span className="field__label">Subiect</span>
          <input value={f.subject} onChange={set('subject')} required maxLength={500} />
        </label>
        {!restricted && (
          <>
            <label className="field">
              <span className="field__label">Expeditor</span>
              <input value={f.sender} onChange={set('sender')} maxLength={300} />
            </label>
            <label className="field">
              <span className="field__label">Destinatar</span>
              <input value={f.recipient} onChange={set('recipient')} maxLength={300} />
            </label>
          </>
        )}
        <label className="field">
          <span className="field__label">Termen</span>
          <input type="date" value={f.deadline} onChange={set('deadline')} />
        </label>
        <label className="field">
          <span className="field__label">Responsabil</span>
          <input value={f.assignee} onChange={set('assignee')} maxLength={200} />
        </label>
        <label className="field field--wide">
          <span className="field__label">Observații</span>
          <textarea value={f.notes} onChange={set('notes')} rows={3} maxLength={5000} />
        </label>
      </div>
      <fieldset className="reg-form__tracking">
        <legend className="field__label">Urmărire la autoritate (opțional)</legend>
        <label className="field">
          <span className="field__label">Autoritate</span>
          <input value={f.trackAuthority} onChange={set('trackAuthority')} placeholder="Primăria Municipiului…" />
        </label>
        <label className="field">
          <span className="field__label">Număr cerere</span>
          <input value={f.trackRequest} onChange={set('trackRequest')} placeholder="1234/2026" />
        </label>
        {!restricted && (
          <label className="field">
            <span className="field__label">Petent</span>
            <input value={f.trackPetitioner} onChange={set('trackPetitioner')} />
          </label>
        )}
      </fieldset>
      {renumberWarning && <p className="notice notice--warn">Schimbarea companiei, a anului sau a direcției alocă un număr nou.</p>}
      {error && <p className="notice notice--fail" role="alert">{error}</p>}
      <div className="reg-form__actions">
        <button type="submit" className="btn btn--primary" disabled={busy || writable.length === 0}>
          {busy ? 'Se salvează…' : entry ? 'Salvează modificările' : 'Înregistrează'}
        </button>
      </div>
    </form>
  );
}

function Attachments({ entry, canWrite, onChange }: { entry: RegistryEntry; canWrite: boolean; onChange: () => void }) {
  const [percent, setPercent] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  function upload(file: File) {
    setError(null);
    setPercent(0);
    const form = new FormData();
    form.append('file', file, file.name);
    // XMLHttpRequest: fetch cannot report upload progress.
    const xhr = new XMLHttpRequest();
    xhr.open('POST', apiUrl('/api/registratura/entries/{id}/attachments', { id: entry.id }));
    xhr.upload.onprogress = (e) => e.lengthComputable && setPercent(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () => {
      setPercent(null);
      if (xhr.status >= 200 && xhr.status < 300) return onChange();
      setError(uploadError(xhr).message);
    };
    xhr.onerror = () => {
      setPercent(null);
      setError('Încărcarea a eșuat (conexiune întreruptă).');
    };
    xhr.send(form);
  }

  async function remove(id: string, name: string) {
    if (!window.confirm(`Ștergeți atașamentul „${name}”?`)) return;
    try {
      await api.delete('/api/registratura/entries/{id}/attachments/{attachmentId}', { params: { id: entry.id, attachmentId: id } });
      onChange();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <Card title="Atașamente" testId="registry-attachments">
      {entry.attachments.length === 0 ? (
        <p className="reg-empty">Niciun atașament.</p>
      ) : (
        <ul className="reg-attachments">
          {entry.attachments.map((a) => (
            <li key={a.id}>
              <a href={apiUrl('/api/registratura/entries/{id}/attachments/{attachmentId}', { id: entry.id, attachmentId: a.id })} download>{a.name}</a>
              <span className="reg-muted">{formatBytes(a.size)}</span>
              {canWrite && <button type="button" className="btn btn--link" onClick={() => void remove(a.id, a.name)}>Șterge</button>}
            </li>
          ))}
        </ul>
      )}
      {canWrite && (
        <label className="reg-upload">
          <span className="btn btn--secondary">Adaugă fișier (max. 500 MB)</span>
          <input type="file" hidden disabled={percent !== null} onChange={(e) => e.target.files?.[0] && upload(e.target.files[0])} />
        </label>
      )}
      {percent !== null && <progress className="reg-progress" max={100} value={percent} aria-label="Progresul încărcării">{percent}%</progress>}
      {error && <p className="notice notice--fail" role="alert">{error}</p>}
    </Card>
  );
}

function TrackingBlock({ entry, onChange }: { entry: RegistryEntry; onChange: () => void }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const t = entry.tracking;
  if (!t) return null;
  async function checkNow() {
    setBusy(true);
    setMessage(null);
    let r: { outcome: string; error?: string };
    try {
      r = await api.post<{ outcome: string; error?: string }>('/api/registratura/status-check/single', { body: { id: entry.id } });
    } catch (err) {
      return setMessage((err as Error).message);
    } finally {
      setBusy(false);
    }
    setMessage(
      r.outcome === 'changed' ? 'Starea s-a schimbat.' : r.outcome === 'unchanged' ? 'Nicio schimbare.' : r.outcome === 'baseline' ? 'Starea a fost citită prima dată.' : `Autoritatea nu a răspuns corect: ${r.error ?? ''}`,
    );
    onChange();
  }
  return (
    <Card
      title={`Urmărire la ${t.authority}`}
      testId="registry-tracking"
      actions={<StatusBadge status={t.status} statusClass={t.statusClass} />}
    >
      <dl className="reg-dl">
        <dt>Număr cerere</dt><dd>{t.requestNumber}</dd>
        <dt>Petent</dt><dd>{t.petitionerName ?? (entry.restricted ? 'restricționat' : '—')}</dd>
        <dt>Detalii</dt><dd>{t.statusText ?? '—'}</dd>
        <dt>Ultima verificare</dt><dd>{fmtTime(t.lastCheckedAt)}{t.lastError ? ` (eroare: ${t.lastError})` : ''}</dd>
      </dl>
      {t.history.length > 0 && (
        <table className="reg-table reg-table--compact">
          <thead><tr><th>Când</th><th>Stare</th><th>Detalii</th></tr></thead>
          <tbody>
            {[...t.history].reverse().map((h, i) => (
              <tr key={i}><td>{fmtTime(h.at)}</td><td><StatusBadge status={h.status} statusClass={classOf(h.status)} /></td><td>{h.text}</td></tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" className="btn btn--secondary" disabled={busy} onClick={() => void checkNow()}>{busy ? 'Se verifică…' : 'Verifică acum'}</button>
      {message && <p className="notice" role="status">{message}</p>}
    </Card>
  );
}

/** CONTRACT.md 3 colour classes. */
const classOf = (status: string): string => (STATUS_CLASS as Record<string, string>)[status] ?? 'gray';

function HistoryBlock({ items }: { items: HistoryItem[] }) {
  return (
    <Card title="Istoricul modificărilor" testId="registry-history">
      {items.length === 0 ? (
        <p className="reg-empty">Fără istoric.</p>
      ) : (
        <ol className="reg-history">
          {[...items].reverse().map((h) => (
            <li key={h.id}>
              <div><strong>{ACTION_LABEL[h.action] ?? h.action}</strong> · {fmtTime(h.at)} · {h.actorName ?? 'sistem'}</div>
              <ul>{h.changes.map((c, i) => <li key={i}>{describeChange(c)}</li>)}</ul>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

export default function RegistryPage() {
  const d = useLoaderData<typeof loader>();
  const [params, setParams] = useSearchParams();
  const revalidator = useRevalidator();
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const selected = d.selected as RegistryEntry | null;
  const canWrite = !!selected && d.viewer.writable.includes(selected.company);
  const pages = Math.max(1, Math.ceil(d.page.total / d.page.pageSize));

  const open = (id: string | null) => {
    // Navigating reloads the page data; without a change it would only race the user's typing.
    if ((params.get('id') ?? null) === id) return;
    const next = new URLSearchParams(params);
    if (id) next.set('id', id);
    else next.delete('id');
    setParams(next, { preventScrollReset: true });
  };
  const pageLink = (n: number) => {
    const next = new URLSearchParams(params);
    next.set('page', String(n));
    return `?${next.toString()}`;
  };

  async function remove(e: RegistryEntry) {
    if (!window.confirm(`Ștergeți înregistrarea ${e.number}? Doar ultimul număr al anului se poate șterge.`)) return;
    setError(null);
    try {
      await api.delete('/api/registratura/entries/{id}', { params: { id: e.id } });
      open(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <div className="registry">
      <header className="page-head">
        <p className="page-head__eyebrow">Registratură</p>
        <h1 className="page-head__title">Registrul de intrări și ieșiri</h1>
        <p className="page-head__sub">Numerele se alocă doar de server, fără goluri și fără dubluri, pe companie și an.</p>
      </header>

      <Card>
        <Form method="get" className="reg-filters" role="search">
          <label className="field">
            <span className="field__label">Caută</span>
            <input name="q" defaultValue={d.filters.q} placeholder="subiect, expeditor, număr…" />
          </label>
          {/* Only the registries the user reads (docs/registry.md "Access"): one of them needs no filter. */}
          {d.viewer.readable.length > 1 && (
            <label className="field">
              <span className="field__label">Companie</span>
              <select name="company" defaultValue={d.filters.company} data-testid="registry-company-filter">
                <option value="">toate</option>
                {d.viewer.readable.map((c) => <option key={c} value={c}>{companyLabel(c as Company)}</option>)}
              </select>
            </label>
          )}
          <label className="field">
            <span className="field__label">An</span>
            <input
              name="year"
              type="number"
              min={REGISTRY_LIST_BOUNDS.yearMin}
              max={REGISTRY_LIST_BOUNDS.yearMax}
              step={1}
              defaultValue={d.filters.year}
              placeholder="2026"
              className="field__year"
            />
          </label>
          <label className="field">
            <span className="field__label">Direcție</span>
            <select name="direction" defaultValue={d.filters.direction}>
              <option value="">ambele</option>
              <option value="intrare">Intrare</option>
              <option value="iesire">Ieșire</option>
            </select>
          </label>
          <button type="submit" className="btn btn--secondary">Filtrează</button>
          <button type="button" className="btn btn--primary" disabled={d.viewer.writable.length === 0} onClick={() => { setCreating(true); open(null); }}>
            Înregistrare nouă
          </button>
        </Form>
        {d.viewer.restricted && <p className="notice notice--warn">Datele personale (expeditor, destinatar, petent) nu vă sunt afișate.</p>}

        {d.page.items.length === 0 ? (
          <p className="reg-empty">Nicio înregistrare pentru aceste filtre.</p>
        ) : (
          <table className="reg-table" data-testid="registry-list">
            <thead>
              <tr><th>Număr</th><th>Data</th><th>Direcție</th><th>Subiect</th><th>{d.viewer.restricted ? '' : 'Expeditor / destinatar'}</th><th>Termen</th><th>Stare</th></tr>
            </thead>
            <tbody>
              {d.page.items.map((e) => (
                <tr key={e.id} className={selected?.id === e.id ? 'is-selected' : undefined}>
                  <td><button type="button" className="btn btn--link reg-number" onClick={() => { setCreating(false); open(e.id); }}>{e.number}</button></td>
                  <td>{fmtDate(e.date)}</td>
                  <td>{DIRECTION_LABEL[e.direction]}</td>
                  <td>{e.subject}{e.attachments.length > 0 && <span className="reg-muted"> · {countOf(e.attachments.length, 'atașament', 'atașamente')}</span>}</td>
                  <td>{d.viewer.restricted ? '' : (e.direction === 'intrare' ? e.sender : e.recipient) ?? '—'}</td>
                  <td><DeadlineBadge deadline={e.deadline} /></td>
                  <td>{e.tracking ? <StatusBadge status={e.tracking.status} statusClass={e.tracking.statusClass} /> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <nav className="reg-pager" aria-label="Pagini">
          <span>{countOf(d.page.total, 'înregistrare', 'înregistrări')} · pagina {d.page.page} din {pages}</span>
          {d.page.page > 1 && <Link to={pageLink(d.page.page - 1)}>‹ Înapoi</Link>}
          {d.page.page < pages && <Link to={pageLink(d.page.page + 1)}>Înainte ›</Link>}
        </nav>
      </Card>

      {d.error && <p className="notice notice--fail" role="alert">{d.error}</p>}
      {error && <p className="notice notice--fail" role="alert">{error}</p>}

      {creating && !selected && (
        <Card title="Înregistrare nouă">
          <EntryForm entry={null} writable={d.viewer.writable} restricted={d.viewer.restricted} onSaved={(id) => { setCreating(false); open(id); }} />
        </Card>
      )}

      {selected && (
        <div className="reg-detail">
          <Card>
            <header className="reg-detail__head">
              <div>
                <p className="reg-muted">{DIRECTION_LABEL[selected.direction]} · {fmtDate(selected.date)} · compania {companyLabel(selected.company as Company)}</p>
                <p className="reg-big-number" data-testid="registry-number">{selected.number}</p>
              </div>
              <div className="reg-detail__badges">
                <DeadlineBadge deadline={selected.deadline} />
                {canWrite && <button type="button" className="btn btn--danger" onClick={() => void remove(selected)}>Șterge</button>}
              </div>
            </header>
            {canWrite ? (
              // A new version of the entry (saved here or elsewhere) starts a fresh form; a reload
              // of the page data alone never wipes what the user is typing.
              <EntryForm key={`${selected.id}@${selected.updatedAt}`} entry={selected} writable={d.viewer.writable} restricted={d.viewer.restricted} onSaved={() => revalidator.revalidate()} />
            ) : (
              <dl className="reg-dl">
                <dt>Subiect</dt><dd>{selected.subject}</dd>
                <dt>Expeditor</dt><dd>{selected.sender ?? '—'}</dd>
                <dt>Destinatar</dt><dd>{selected.recipient ?? '—'}</dd>
                <dt>Responsabil</dt><dd>{selected.assignee ?? '—'}</dd>
                <dt>Observații</dt><dd>{selected.notes ?? '—'}</dd>
              </dl>
            )}
          </Card>
          <Attachments entry={selected} canWrite={canWrite} onChange={() => revalidator.revalidate()} />
          <TrackingBlock entry={selected} onChange={() => revalidator.revalidate()} />
          <HistoryBlock items={d.history as HistoryItem[]} />
        </div>
      )}
    </div>
  );
}
