/** Address book: list, search, add and edit contacts (the same data the external tools read). */
import { useState } from 'react';
import type { ContactOut } from '../../../../domain/office/service';
import { api } from '../../lib/api';
import { OutcomeLine, SearchableTable, RowActions, StackForm, useSearch, type Outcome } from './shared';
import { Card } from '../Card';

const TYPE_LABEL: Record<string, string> = { person: 'Persoană', company: 'Firmă', institution: 'Instituție', supplier: 'Furnizor', authority: 'Autoritate' };
const EMPTY = { id: '', name: '', type: 'person', company: '', organization: '', role: '', email: '', phone: '', address: '', notes: '' };
const COMPANIES = ['B', 'U', 'S', 'G'] as const;

export function AddressBook({ contacts, onChanged }: { contacts: ContactOut[]; onChanged: () => void }) {
  const [form, setForm] = useState(EMPTY);
  const [message, setMessage] = useState<Outcome>(null);
  const search = useSearch(contacts, (c) => [c.name, c.organization, c.email, c.phone, c.role]);

  const save = async () => {
    const { id, ...fields } = form;
    const body = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v === '' && k !== 'name' ? null : v]));
    try {
      if (id) await api.put('/api/contacts/{id}', { params: { id }, body });
      else await api.post('/api/contacts', { body });
      setForm(EMPTY);
      setMessage({ ok: true, text: id ? 'Contactul a fost actualizat.' : 'Contactul a fost adăugat.' });
      onChanged();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    }
  };
  const edit = (c: ContactOut) => {
    setMessage(null);
    setForm({
      id: c.id,
      name: c.name,
      type: c.type,
      company: c.company ?? '',
      organization: c.organization ?? '',
      role: c.role ?? '',
      email: c.email ?? '',
      phone: c.phone ?? '',
      address: c.address ?? '',
      notes: c.notes ?? '',
    });
  };
  const remove = async (c: ContactOut) => {
    if (!window.confirm(`Ștergeți contactul „${c.name}”?`)) return;
    try {
      await api.delete('/api/contacts/{id}', { params: { id: c.id } });
      onChanged();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    }
  };
  const field = (k: keyof typeof EMPTY, label: string, type = 'text') => (
    <input aria-label={label} placeholder={label} type={type} value={form[k]} onChange={(e) => setForm({ ...form, [k]: e.target.value })} required={k === 'name'} />
  );

  return (
    <div className="office-grid">
      <Card title={`Agendă (${contacts.length})`}>
        <SearchableTable
          search={search}
          texts={['Caută nume, organizație, e-mail…', 'Agenda este goală.', 'Niciun contact nu se potrivește căutării.']}
          testId="contacts-table"
          headers={['Nume', 'Tip', 'Firmă', 'Organizație', 'E-mail', 'Telefon', '']}
        >
          {search.visible.map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td>
              <td>{TYPE_LABEL[c.type] ?? c.type}</td>
              <td>{c.company ?? ''}</td>
              <td>{c.organization}</td>
              <td>{c.email && <a href={`mailto:${c.email}`}>{c.email}</a>}</td>
              <td>{c.phone}</td>
              <RowActions editLabel="Editează" onEdit={() => edit(c)} onRemove={() => void remove(c)} />
            </tr>
          ))}
        </SearchableTable>
      </Card>
      <Card title={form.id ? 'Editează contactul' : 'Contact nou'} testId="contact-form">
        <StackForm onSave={save}>
          {field('name', 'Nume')}
          <select aria-label="Tip" value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value })}>
            {Object.entries(TYPE_LABEL).map(([v, l]) => (
              <option key={v} value={v}>{l}</option>
            ))}
          </select>
          <select aria-label="Firmă" value={form.company} onChange={(e) => setForm({ ...form, company: e.target.value })}>
            <option value="">Toate firmele (agendă comună)</option>
            {COMPANIES.map((c) => (
              <option key={c} value={c}>
                Firma {c}
              </option>
            ))}
          </select>
          {field('organization', 'Organizație')}
          {field('role', 'Funcție')}
          {field('email', 'E-mail', 'email')}
          {field('phone', 'Telefon', 'tel')}
          {field('address', 'Adresă')}
          {field('notes', 'Note')}
          <div className="office-actions">
            <button className="btn btn--primary">{form.id ? 'Salvează' : 'Adaugă'}</button>
            {form.id && (
              <button type="button" className="btn btn--ghost" onClick={() => setForm(EMPTY)}>Renunță</button>
            )}
          </div>
        </StackForm>
        <OutcomeLine outcome={message} />
      </Card>
    </div>
  );
}
