/**
 * Vault: list and search (no passwords), reveal and copy one password (logged), add and edit an
 * entry (name, user, web address, password, notes; the company for the group company G), the
 * access log. A password is sent only when typed: an edit that leaves it blank keeps it.
 */
import { useState } from 'react';
import type { VaultAccessOut, VaultEntryOut } from '../../../../domain/office/service';
import { api } from '../../lib/api';
import { OutcomeLine, SearchableTable, RowActions, StackForm, useSearch, type Outcome } from './shared';
import { Card } from '../Card';
import { formatWhen } from '../../lib/dates';

const COMPANIES = ['B', 'U', 'S', 'G'] as const;
const EMPTY = { id: '', name: '', username: '', url: '', password: '', clearPassword: false, notes: '', company: '' };
type Form = typeof EMPTY;

/** The API's rule for `url` (api/routes/officeVault.ts): http(s) only, or nothing. */
function isWebAddress(v: string): boolean {
  if (v === '') return true;
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}

export function Vault({
  entries,
  accessLog,
  callerCompany,
  onChanged,
}: {
  entries: VaultEntryOut[];
  accessLog: VaultAccessOut[];
  /** The group company G keeps entries for every company; the others only for their own. */
  callerCompany: string | null;
  onChanged: () => void;
}) {
  const [shown, setShown] = useState<Record<string, string>>({});
  const [form, setForm] = useState<Form>(EMPTY);
  const [message, setMessage] = useState<Outcome>(null);
  const search = useSearch(entries, (e) => [e.name, e.username, e.url, e.notes]);
  const editingEntry = form.id ? entries.find((e) => e.id === form.id) : undefined;

  const fail = (err: unknown) => setMessage({ ok: false, text: (err as Error).message });
  const reveal = async (id: string) => {
    try {
      const r = await api.get<{ entry: { password: string | null } }>('/api/vault', { query: { id } });
      setShown({ ...shown, [id]: r.entry.password ?? '' });
      onChanged(); // the access log gained a line
    } catch (err) {
      fail(err);
    }
  };
  const copy = async (id: string) => {
    try {
      const password = shown[id] ?? (await api.get<{ entry: { password: string | null } }>('/api/vault', { query: { id } })).entry.password ?? '';
      await navigator.clipboard.writeText(password);
      setMessage({ ok: true, text: 'Parola a fost copiată.' });
      onChanged();
    } catch (err) {
      fail(err);
    }
  };
  const save = async () => {
    const url = form.url.trim();
    if (!isWebAddress(url)) {
      setMessage({ ok: false, text: 'Adresa trebuie să fie un URL http:// sau https://.' });
      return;
    }
    const body: Record<string, unknown> = { name: form.name, username: form.username || null, url: url || null, notes: form.notes || null };
    if (form.password) body.password = form.password;
    else if (form.id && form.clearPassword) body.password = null;
    else if (!form.id) body.password = null;
    if (callerCompany === 'G' && form.company) body.company = form.company;
    try {
      if (form.id) await api.put('/api/vault', { query: { id: form.id }, body });
      else await api.post('/api/vault', { body });
      // A changed password must not stay on screen as the old one.
      if (form.id) setShown(({ [form.id]: _old, ...rest }) => rest);
      setMessage({ ok: true, text: form.id ? 'Intrarea a fost modificată.' : 'Intrarea a fost salvată.' });
      setForm(EMPTY);
      onChanged();
    } catch (err) {
      fail(err);
    }
  };
  const edit = (e: VaultEntryOut) => {
    setMessage(null);
    setForm({ id: e.id, name: e.name, username: e.username ?? '', url: e.url ?? '', password: '', clearPassword: false, notes: e.notes ?? '', company: e.company ?? '' });
  };
  const remove = async (e: VaultEntryOut) => {
    if (!window.confirm(`Ștergeți intrarea „${e.name}”?`)) return;
    try {
      await api.delete('/api/vault', { query: { id: e.id } });
      if (form.id === e.id) setForm(EMPTY);
      onChanged();
    } catch (err) {
      fail(err);
    }
  };
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });

  return (
    <div className="office-grid">
      <Card title={`Seif de parole (${entries.length})`}>
        <SearchableTable
          search={search}
          texts={['Caută: nume, utilizator, adresă…', 'Seiful este gol.', 'Nicio intrare nu se potrivește căutării.']}
          testId="vault-table"
          headers={['Nume', 'Utilizator', 'Adresă', 'Firmă', 'Parolă', '']}
        >
          {search.visible.map((e) => (
            <tr key={e.id}>
              <td>
                {e.name}
                {e.notes && <div className="office-muted">{e.notes}</div>}
              </td>
              <td>{e.username}</td>
              <td>{e.url && (/^https?:\/\//i.test(e.url) ? <a href={e.url} target="_blank" rel="noreferrer noopener">{e.url}</a> : e.url)}</td>
              <td>{e.company}</td>
              <td>
                {!e.hasPassword ? (
                  <span className="office-muted">—</span>
                ) : shown[e.id] !== undefined ? (
                  <code>{shown[e.id]}</code>
                ) : (
                  <button className="btn btn--link" onClick={() => void reveal(e.id)}>Arată</button>
                )}
                {e.hasPassword && (
                  <button className="btn btn--link" onClick={() => void copy(e.id)}>Copiază</button>
                )}
              </td>
              <RowActions editLabel="Modifică" onEdit={() => edit(e)} onRemove={() => void remove(e)} />
            </tr>
          ))}
        </SearchableTable>
        <OutcomeLine outcome={message} />
      </Card>
      <Card title={form.id ? `Modifică intrarea „${editingEntry?.name ?? form.name}”` : 'Intrare nouă'} testId="vault-form">
        <StackForm onSave={save}>
          <input aria-label="Nume" placeholder="Nume" value={form.name} onChange={(e) => set({ name: e.target.value })} required />
          <input aria-label="Utilizator" placeholder="Utilizator" value={form.username} onChange={(e) => set({ username: e.target.value })} />
          <input aria-label="Adresă" placeholder="https://…" value={form.url} onChange={(e) => set({ url: e.target.value })} />
          <input
            aria-label="Parolă"
            placeholder={form.id ? 'Parolă nouă (gol: rămâne cea de acum)' : 'Parolă'}
            type="password"
            autoComplete="new-password"
            value={form.password}
            onChange={(e) => set({ password: e.target.value, clearPassword: false })}
          />
          {form.id && editingEntry?.hasPassword && (
            <label className="office-field">
              <span>
                <input type="checkbox" checked={form.clearPassword} disabled={form.password !== ''} onChange={(e) => set({ clearPassword: e.target.checked })} /> Șterge
                parola
              </span>
            </label>
          )}
          <textarea aria-label="Note" placeholder="Note" value={form.notes} onChange={(e) => set({ notes: e.target.value })} />
          {callerCompany === 'G' && (
            <select aria-label="Firmă" value={form.company} onChange={(e) => set({ company: e.target.value })}>
              {!form.id && <option value="">firma dumneavoastră (G)</option>}
              {COMPANIES.map((c) => (
                <option key={c} value={c}>
                  Firma {c}
                </option>
              ))}
            </select>
          )}
          <div className="office-actions">
            <button className="btn btn--primary">{form.id ? 'Salvează' : 'Adaugă'}</button>
            {form.id && (
              <button type="button" className="btn btn--ghost" onClick={() => setForm(EMPTY)}>
                Renunță
              </button>
            )}
          </div>
        </StackForm>
      </Card>
      <Card title="Jurnal de acces">
        {accessLog.length === 0 ? (
          <p className="office-muted">Nicio parolă nu a fost citită încă.</p>
        ) : (
          <ul className="office-log">
            {accessLog.map((a, i) => (
              <li key={i}>
                {formatWhen(a.at, 'dateTimeSeconds')} · <strong>{a.userEmail}</strong> a citit parola „{a.entryName}”
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
