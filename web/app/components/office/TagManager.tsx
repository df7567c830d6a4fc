/**
 * Tag manager: the app's tag tree (projects, phases, activities), renaming a tag or moving a
 * project to another company, the sync plan with the tag file shown before anything is applied,
 * and a choice per conflict.
 */
import { useMemo, useState } from 'react';
import type { PlanAnswer, TagOut } from '../../../../domain/tags/service';
import { api } from '../../lib/api';
import { OutcomeLine, type Outcome } from './shared';
import { Card } from '../Card';
import { formatWhen } from '../../lib/dates';
import { countOf } from '../../lib/words';

const COMPANY_CHOICES = ['B', 'U', 'S', 'G'] as const;
const LEVEL_LABEL: Record<string, string> = { project: 'Proiect', phase: 'Fază', activity: 'Activitate' };

type Level = 'project' | 'phase' | 'activity';

/** The text of one level of a tag's path: the project text, the phase or the activity. */
function levelText(t: TagOut, level: Level): string {
  return (level === 'activity' ? t.activity : level === 'phase' ? t.phase : t.project) ?? t.project;
}

/** A tag's path up to a level: what the level stands for in the tree. */
function levelPath(t: TagOut, level: Level): string {
  return level === 'project' ? t.project : level === 'phase' ? `${t.project}, ${t.phase}` : t.path;
}

/**
 * Each project and phase node carries its own tag when it has one, else the first tag under it
 * (a tag added as a full path has no project or phase tag): the node is renamed through that tag,
 * at the node's level.
 */
type Tree = Array<{ project: string; tag?: TagOut; via: TagOut; phases: Array<{ phase: string; tag?: TagOut; via: TagOut; activities: TagOut[] }> }>;

function buildTree(tags: TagOut[]): Tree {
  const projects = new Map<string, Tree[number]>();
  for (const t of tags) {
    const p = projects.get(t.project) ?? { project: t.project, via: t, phases: [] };
    projects.set(t.project, p);
    if (t.category === 'project') p.tag = p.via = t;
    else {
      let ph = p.phases.find((x) => x.phase === t.phase);
      if (!ph) p.phases.push((ph = { phase: t.phase!, via: t, activities: [] }));
      if (t.category === 'phase') ph.tag = ph.via = t;
      else ph.activities.push(t);
    }
  }
  return [...projects.values()];
}

function Changes({ title, c }: { title: string; c: PlanAnswer['plan']['file'] }) {
  const n = c.added.length + c.removed.length + c.changed.length;
  return (
    <div className="office-plan__side">
      <h4>
        {title} <span className="office-muted">({n})</span>
      </h4>
      {n === 0 && <p className="office-muted">Nicio modificare.</p>}
      <ul>
        {c.added.map((p) => (
          <li key={`a${p}`} className="office-add">+ {p}</li>
        ))}
        {c.removed.map((p) => (
          <li key={`r${p}`} className="office-del">− {p}</li>
        ))}
        {c.changed.map((x) => (
          <li key={`c${x.from}`} className="office-chg">
            ~ {x.from} → {x.to}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function TagManager({
  tags,
  plan,
  isAdmin,
  onChanged,
}: {
  tags: TagOut[];
  plan: PlanAnswer | null;
  /** The tag file and deletions are the office's: administrators only (issue 25). */
  isAdmin: boolean;
  onChanged: () => void;
}) {
  const tree = useMemo(() => buildTree(tags), [tags]);
  const [form, setForm] = useState({ project: '', phase: '', activity: '' });
  const [choices, setChoices] = useState<Record<string, 'file' | 'db'>>({});
  const [message, setMessage] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState<{ tag: TagOut; level: Level; name: string; company: string } | null>(null);

  const run = async (fn: () => Promise<string>) => {
    setBusy(true);
    setMessage(null);
    try {
      setMessage({ ok: true, text: await fn() });
      onChanged();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const add = () =>
    run(async () => {
      await api.post('/api/tags', { body: { project: form.project, phase: form.phase || null, activity: form.activity || null } });
      setForm({ project: form.project, phase: '', activity: '' });
      return 'Eticheta a fost adăugată.';
    });
  const remove = (t: TagOut) => {
    if (!window.confirm(`Ștergeți eticheta „${t.path}”${t.category !== 'activity' ? ' și tot ce este sub ea' : ''}?`)) return;
    void run(async () => {
      const r = await api.delete<{ deleted: number }>('/api/tags/{id}', { params: { id: t.id } });
      return `Au fost șterse ${r.deleted} etichete.`;
    });
  };
  const edit = (t: TagOut, level: Level) => setEditing({ tag: t, level, name: levelText(t, level), company: t.company ?? '' });
  const saveEdit = () => {
    if (!editing) return;
    const { tag, level, name, company } = editing;
    const change: { name?: string; company?: string | null; level?: Level } = {};
    if (name.trim() !== levelText(tag, level)) change.name = name;
    if (level === 'project' && company !== (tag.company ?? '')) change.company = company || null;
    if (Object.keys(change).length === 0) {
      setEditing(null);
      return;
    }
    void run(async () => {
      await api.put('/api/tags/{id}', { params: { id: tag.id }, body: { ...change, level } });
      setEditing(null);
      return level === 'activity' ? 'Eticheta a fost modificată.' : 'Eticheta și cele de sub ea au fost modificate.';
    });
  };
  const apply = (mode: 'pull' | 'push' | 'both') =>
    run(async () => {
      const r = await api.post<any>('/api/manictime', { body: { mode, resolutions: choices, expectFingerprint: plan?.fingerprint } });
      setChoices({});
      const left = r.conflicts.length ? ` ${r.conflicts.length} conflicte rămân nerezolvate.` : '';
      return `Sincronizare aplicată: în aplicație +${r.applied.db.added} −${r.applied.db.removed} ~${r.applied.db.changed}; fișier ${r.applied.file.written ? 'rescris (copie de siguranță făcută)' : 'neschimbat'}.${left}`;
    });

  return (
    <div className="office-grid">
      <Card title={<>Etichete ({tags.length})</>}>
        <form
          className="office-form"
          onSubmit={(e) => {
            e.preventDefault();
            void add();
          }}
        >
          <input aria-label="Proiect" className="office-form__wide" placeholder="Proiect (ex. B-0123 Casa Popescu)" value={form.project} onChange={(e) => setForm({ ...form, project: e.target.value })} required />
          <input aria-label="Fază" placeholder="Fază (opțional)" value={form.phase} onChange={(e) => setForm({ ...form, phase: e.target.value })} />
          <input aria-label="Activitate" placeholder="Activitate (opțional)" value={form.activity} onChange={(e) => setForm({ ...form, activity: e.target.value })} disabled={!form.phase} />
          <button className="btn btn--primary" disabled={busy}>Adaugă</button>
        </form>
        {editing && (
          <form
            className="office-form office-edit"
            data-testid="tag-edit"
            onSubmit={(e) => {
              e.preventDefault();
              saveEdit();
            }}
          >
            <strong>Modifică „{levelPath(editing.tag, editing.level)}”</strong>
            <input
              aria-label={LEVEL_LABEL[editing.level] ?? 'Nume'}
              value={editing.name}
              onChange={(e) => setEditing({ ...editing, name: e.target.value })}
              required
            />
            {editing.level === 'project' && (
              <select aria-label="Firmă" value={editing.company} onChange={(e) => setEditing({ ...editing, company: e.target.value })}>
                <option value="">după codul proiectului</option>
                {COMPANY_CHOICES.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
            <button className="btn btn--primary" disabled={busy}>Salvează</button>
            <button type="button" className="btn btn--ghost" onClick={() => setEditing(null)}>
              Renunță
            </button>
          </form>
        )}
        {tree.length === 0 ? (
          <p className="office-muted">Nu există etichete. Adăugați un proiect sau aduceți etichetele din fișier.</p>
        ) : (
          <ul className="office-tree">
            {tree.map((p) => (
              <li key={p.project}>
                <span className="office-tree__project">{p.project}</span>
                {p.tag?.company && <span className="office-muted"> · firma {p.tag.company}</span>}
                {isAdmin && (
                  <>
                    <button className="btn btn--link" onClick={() => edit(p.via, 'project')} aria-label={`Modifică ${p.project}`}>
                      modifică
                    </button>
                    {p.tag && (
                      <button className="btn btn--link" onClick={() => remove(p.tag!)} aria-label={`Șterge ${p.project}`}>
                        șterge
                      </button>
                    )}
                  </>
                )}
                <ul>
                  {p.phases.map((ph) => (
                    <li key={ph.phase}>
                      {ph.phase}
                      {isAdmin && (
                        <>
                          <button className="btn btn--link" onClick={() => edit(ph.via, 'phase')} aria-label={`Modifică ${levelPath(ph.via, 'phase')}`}>
                            modifică
                          </button>
                          {ph.tag && (
                            <button className="btn btn--link" onClick={() => remove(ph.tag!)}>
                              șterge
                            </button>
                          )}
                        </>
                      )}
                      <ul>
                        {ph.activities.map((a) => (
                          <li key={a.id}>
                            {a.activity}
                            {isAdmin && (
                              <>
                                <button className="btn btn--link" onClick={() => edit(a, 'activity')} aria-label={`Modifică ${a.path}`}>
                                  modifică
                                </button>
                                <button className="btn btn--link" onClick={() => remove(a)}>
                                  șterge
                                </button>
                              </>
                            )}
                          </li>
                        ))}
                      </ul>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
      </Card>

      <Card title="Sincronizare cu fișierul de etichete">
        {!plan ? (
          <p className="office-muted">Planul nu este disponibil.</p>
        ) : (
          <>
            <p className="office-muted">
              {/* Its name only: where the server keeps it is no business of the page. */}
              {plan.file.path ? <>Fișier: <code>{plan.file.path.split(/[\\/]/).pop()}</code></> : 'Fișierul de etichete al biroului'} {plan.file.exists ? `(${countOf(plan.file.lines, 'etichetă', 'etichete')})` : '(nu există încă)'} · ultima
              sincronizare: {plan.lastSyncAt ? formatWhen(plan.lastSyncAt, 'dateTimeSeconds') : 'niciodată'}
            </p>
            {!plan.file.exists && plan.plan.inSync ? (
              <p className="office-muted" data-testid="tags-file-missing">Fișierul nu există încă: se creează la prima sincronizare.</p>
            ) : plan.plan.inSync ? (
              <p className="office-ok">Fișierul și aplicația sunt sincronizate.</p>
            ) : (
              <div className="office-plan">
                <Changes title="Modificări în fișier (se aduc în aplicație)" c={plan.plan.file} />
                <Changes title="Modificări în aplicație (se scriu în fișier)" c={plan.plan.db} />
              </div>
            )}
            {plan.plan.conflicts.length > 0 && (
              <div className="office-conflicts">
                <h4>Conflicte ({plan.plan.conflicts.length}): alegeți versiunea care rămâne</h4>
                {plan.plan.conflicts.map((c) => (
                  <fieldset key={c.key}>
                    <legend>Înainte: {c.base ?? '(nu exista)'}</legend>
                    <label>
                      <input type="radio" name={c.key} checked={choices[c.key] === 'file'} onChange={() => setChoices({ ...choices, [c.key]: 'file' })} />
                      Fișier: {c.file ?? '(șters)'}
                    </label>
                    <label>
                      <input type="radio" name={c.key} disabled={!isAdmin} checked={choices[c.key] === 'db'} onChange={() => setChoices({ ...choices, [c.key]: 'db' })} />
                      Aplicație: {c.db ?? '(șters)'}
                    </label>
                  </fieldset>
                ))}
              </div>
            )}
            <div className="office-actions">
              <button className="btn btn--secondary" disabled={busy} onClick={() => void apply('pull')}>Adu din fișier</button>
              <button className="btn btn--secondary" disabled={busy || !isAdmin} onClick={() => void apply('push')}>Scrie în fișier</button>
              <button className="btn btn--primary" disabled={busy || !isAdmin} onClick={() => void apply('both')}>Sincronizează în ambele sensuri</button>
            </div>
            {!isAdmin && (
              <p className="office-muted" data-testid="tags-admin-only">
                Fișierul de etichete este comun întregului birou: doar administratorii îl pot rescrie și pot modifica sau șterge etichete.
                Puteți aduce modificările din fișier și adăuga etichete noi.
              </p>
            )}
          </>
        )}
        <OutcomeLine outcome={message} />
      </Card>
    </div>
  );
}
