/** Vault: list and search (no passwords), reveal and copy one password (logged), add, the access log. */
import { useState } from 'react';
import type { VaultAccessOut, VaultEntryOut } from '../../../../domain/office/vault';
import { officeApi } from '../../lib/officeApi';
import { filterByText, OutcomeLine, SearchableList, type Outcome } from './shared';
import { Card } from '../Card';
import { formatWhen } from '../../lib/dates';

export function Vault({ entries, accessLog, onChanged }: { entries: VaultEntryOut[]; accessLog: VaultAccessOut[]; onChanged: () => void }) {
  const [q, setQ] = useState('');
  const [shown, setShown] = useState<Record<string, string>>({});
  const [form, setForm] = useState({ name: '', username: '', url: '', password: '' });
  const [message, setMessage] = useState<Outcome>(null);
  const visible = filterByText(entries, q, (e) => [e.name, e.username, e.url, e.notes]);

  const fail = (err: unknown) => setMessage({ ok: false, text: (err as Error).message });
  const reveal = async (id: string) => {
    try {
      const r = await officeApi<{ entry: { password: string | null } }>('GET', `/api/vault?id=${id}`);
      setShown({ ...shown, [id]: r.entry.password ?? '' });
      onChanged(); // the access log gained a line
    } catch (err) {
      fail(err);
    }
  };
  const copy = async (id: string) => {
    try {
      const password = shown[id] ?? (await officeApi<{ entry: { password: string | null } }>('GET', `/api/vault?id=${id}`)).entry.password ?? '';
      await navigator.clipboard.writeText(password);
      setMessage({ ok: true, text: 'Parola a fost copiată.' });
      onChanged();
    } catch (err) {
      fail(err);
    }
  };
  const add = async () => {
    try {
      await officeApi('POST', '/api/vault', { name: form.name, username: form.username || null, url: form.url || null, password: form.password || null });
      setForm({ name: '', username: '', url: '', password: '' });
      setMessage({ ok: true, text: 'Intrarea a fost salvată.' });
      onChanged();
    } catch (err) {
      fail(err);
    }
  };
  const remove = async (e: VaultEntryOut) => {
    if (!window.confirm(`Ștergeți intrarea „${e.name}”?`)) return;
    try {
      await officeApi('DELETE', `/api/vault?id=${e.id}`);
      onChanged();
    } catch (err) {
      fail(err);
    }
  };

  return (
    <div className="office-grid">
      <Card title={`Seif de parole (${entries.length})`}>
        <SearchableList
          total={entries.length}
          shown={visible.length}
          q={q}
          onQ={setQ}
          placeholder="Caută după nume, utilizator, adresă…"
          empty="Seiful este gol."
          noMatch="Nicio intrare nu se potrivește căutării."
        >
          <table className="office-table">
            <thead>
              <tr>
                <th>Nume</th>
                <th>Utilizator</th>
                <th>Adresă</th>
                <th>Firmă</th>
                <th>Parolă</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {visible.map((e) => (
                <tr key={e.id}>
                  <td>{e.name}</td>
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
                  <td>
                    <button className="btn btn--link" onClick={() => void remove(e)}>Șterge</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </SearchableList>
        <form
          className="office-form"
          onSubmit={(ev) => {
            ev.preventDefault();
            void add();
          }}
        >
          <input aria-label="Nume" placeholder="Nume" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} required />
          <input aria-label="Utilizator" placeholder="Utilizator" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} />
          <input aria-label="Adresă" placeholder="https://…" value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} />
          <input aria-label="Parolă" placeholder="Parolă" type="password" autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />
          <button className="btn btn--primary">Adaugă</button>
        </form>
        <OutcomeLine outcome={message} />
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
