/**
 * /parcel-sync/reguli: the sync rules (spec 2.6, docs/scheduling.md). The list of rules (UAT and
 * county, steps, windows, priority, frequency, last run, next due), a form that creates one or
 * edits one, bulk creation for a county (one UAT rule per UAT), the global default frequency, and
 * the scheduler's view of what runs next and when. Everything goes through the sync-rules API with
 * the session cookie, so the page shows exactly what the API answers; central-API users read the
 * rules and see why they cannot change them (the 410 gate of spec 5.9).
 */
import { useCallback, useEffect, useState } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import { requireSession } from '../lib/auth.server';
import { ParcelSyncLayout } from '../components/sync/ParcelSyncLayout';
import { UatPicker } from '../components/sync/UatPicker';
import type { UatChoice } from '../components/sync/uatSearch';
import { foldName } from '../../../domain/text/fold';
import {
  CENTRAL_API_NOTICE,
  DAY_LONG,
  DAY_SHORT,
  FREQUENCIES,
  FREQUENCY_LABEL,
  SOURCE_LABEL,
  STEP_CODES,
  STEP_LABEL,
  formatWhen,
  formatWindows,
  ruleTarget,
  failureText,
  windowFromForm,
  windowToForm,
  type Frequency,
  type RuleWindow,
  type ScheduledUat,
  type StepCode,
  type SyncRuleView,
} from '../components/sync/syncRules';
import { Card } from '../components/Card';
import { api } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'Reguli de sincronizare · Sincronizare parcele' }];
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: parcelSyncCss }];

export function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  return { useCentralApi: auth.useCentralApi, isAdmin: auth.isAdmin };
}

interface RulesAnswer {
  items: SyncRuleView[];
  defaultFrequency: Frequency;
}
interface SchedulerAnswer {
  defaultFrequency: Frequency;
  due: ScheduledUat[];
}

/** Rows of the scheduler view shown (the API orders them by start time). */
const UPCOMING_ROWS = 25;

interface FormWindow {
  days: number[];
  start: string;
  end: string;
}
interface FormState {
  /** The rule being edited; null = a new rule. */
  id: string | null;
  scope: 'uat' | 'county' | 'bulk';
  uat: UatChoice | null;
  county: string;
  frequency: Frequency;
  priority: number;
  steps: StepCode[];
  windows: FormWindow[];
  enabled: boolean;
}

const EMPTY_FORM: FormState = {
  id: null,
  scope: 'county',
  uat: null,
  county: '',
  frequency: 'daily',
  priority: 5,
  steps: [...STEP_CODES],
  windows: [],
  enabled: true,
};

function formOf(r: SyncRuleView, names: Map<number, string>): FormState {
  return {
    id: r.id,
    scope: r.scope,
    uat: r.siruta
      ? {
          siruta: r.siruta,
          name: names.get(r.siruta) ?? String(r.siruta),
          county: null,
        }
      : null,
    county: r.county ?? '',
    frequency: r.frequency,
    priority: r.priority,
    steps: [...r.steps],
    windows: r.windows.map((w) => {
      const f = windowToForm(w);
      return { days: f.days, start: f.start, end: f.end };
    }),
    enabled: r.enabled,
  };
}

function FrequencyField(props: { name: string; label: string; value: Frequency; onChange: (f: Frequency) => void }) {
  return (
    <label className="field">
      <span>{props.label}</span>
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.target.value as Frequency)}>
        {FREQUENCIES.map((f) => (
          <option key={f} value={f}>
            {FREQUENCY_LABEL[f]}
          </option>
        ))}
      </select>
    </label>
  );
}

export default function SyncRulesPage() {
  const { useCentralApi, isAdmin } = useLoaderData<typeof loader>();
  const [rules, setRules] = useState<SyncRuleView[] | null>(null);
  const [scheduler, setScheduler] = useState<SchedulerAnswer | null>(null);
  const [counties, setCounties] = useState<string[]>([]);
  const [form, setForm] = useState<FormState>(EMPTY_FORM);
  const [defaultFrequency, setDefaultFrequency] = useState<Frequency>('daily');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [filter, setFilter] = useState('');

  const load = useCallback(async () => {
    try {
      const [r, s] = await Promise.all([api.get<RulesAnswer>('/api/landreg/sync-rules'), api.get<SchedulerAnswer>('/api/landreg/sync-rules/scheduler')]);
      setRules(r.items);
      setScheduler(s);
      setDefaultFrequency(s.defaultFrequency);
    } catch (err) {
      setError(failureText(err));
    }
  }, []);
  useEffect(() => {
    void load();
    void api.get<{ counties: string[] }>('/api/landreg/counties')
      .then((c) => setCounties(c.counties))
      .catch(() => setCounties([]));
    const t = setInterval(() => void load(), 60_000);
    return () => clearInterval(t);
  }, [load]);

  const wanted = foldName(filter);
  const upcoming = (scheduler?.due ?? []).filter((d) => !wanted || foldName(`${d.name} ${d.siruta} ${d.county ?? ''}`).includes(wanted));
  const names = new Map((scheduler?.due ?? []).map((d) => [d.siruta, d.name]));

  const write = async (what: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const message = await what();
      // The notice says the change is made: it appears with the tables already showing it.
      await load();
      setDone(message);
    } catch (err) {
      setError(failureText(err));
    } finally {
      setBusy(false);
    }
  };

  const submit = () =>
    write(async () => {
      const windows: RuleWindow[] = [];
      for (const [i, w] of form.windows.entries()) {
        const ruleWindow = windowFromForm(w.days, w.start, w.end);
        if (!ruleWindow) throw new Error(`Fereastra ${i + 1}: alegeți cel puțin o zi și orele în forma HH:MM.`);
        windows.push(ruleWindow);
      }
      const common = {
        frequency: form.frequency,
        priority: form.priority,
        steps: form.steps,
        windows,
        enabled: form.enabled,
      };
      if (form.id) {
        await api.patch('/api/landreg/sync-rules/{id}', { params: { id: form.id }, body: common });
        setForm(EMPTY_FORM);
        return 'Regula a fost modificată.';
      }
      if (form.scope === 'bulk') {
        if (!form.county) throw new Error('Alegeți județul.');
        const r = await api.post<{
          county: string;
          created: unknown[];
          skipped: number[];
        }>('/api/landreg/sync-rules/bulk', {
          body: { county: form.county, ...common },
        });
        setForm(EMPTY_FORM);
        return `Județul ${r.county}: ${r.created.length} reguli de UAT create${r.skipped.length ? `, ${r.skipped.length} UAT-uri aveau deja o regulă` : ''}.`;
      }
      if (form.scope === 'uat' && !form.uat) throw new Error('Alegeți UAT-ul.');
      if (form.scope === 'county' && !form.county) throw new Error('Alegeți județul.');
      const target = form.scope === 'uat' ? { scope: 'uat', siruta: form.uat!.siruta } : { scope: 'county', county: form.county };
      await api.post('/api/landreg/sync-rules', { body: { ...target, ...common } });
      setForm(EMPTY_FORM);
      return 'Regula a fost creată.';
    });

  const remove = (r: SyncRuleView) => {
    if (typeof window !== 'undefined' && !window.confirm(`Ștergeți regula pentru ${ruleTarget(r, names.get(r.siruta ?? 0))}?`)) return;
    void write(async () => {
      await api.delete('/api/landreg/sync-rules/{id}', { params: { id: r.id } });
      if (form.id === r.id) setForm(EMPTY_FORM);
      return 'Regula a fost ștearsă.';
    });
  };

  const saveDefault = () =>
    write(async () => {
      await api.patch('/api/landreg/sync-rules/scheduler', { body: { defaultFrequency } });
      return `Frecvența implicită este acum: ${FREQUENCY_LABEL[defaultFrequency]}.`;
    });

  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));
  const setWindows = (fn: (ws: FormWindow[]) => FormWindow[]) => setForm((f) => ({ ...f, windows: fn(f.windows) }));
  const setWindow = (i: number, patch: Partial<FormWindow>) =>
    setForm((f) => ({
      ...f,
      windows: f.windows.map((w, j) => (j === i ? { ...w, ...patch } : w)),
    }));
  // The rules and the default are the office's global settings: administrators change them (issue 25).
  const locked = useCentralApi || !isAdmin || busy;

  return (
    <ParcelSyncLayout
      active="rules"
      siruta={null}
      title="Reguli de sincronizare"
      sub="Când se sincronizează singur fiecare UAT: regula UAT-ului, altfel regula județului, altfel frecvența implicită."
    >
      <div className="rules">
        {useCentralApi && (
          <p className="notice notice--warn" data-testid="rules-central-notice">
            {CENTRAL_API_NOTICE}
          </p>
        )}
        {!isAdmin && !useCentralApi && (
          <p className="notice notice--warn" data-testid="rules-admin-notice">
            Regulile și frecvența implicită sunt setări comune ale biroului: doar administratorii le pot crea, modifica sau șterge. Le puteți consulta aici.
          </p>
        )}
        {error && (
          <p className="notice notice--fail" role="alert" data-testid="rules-error">
            {error}
          </p>
        )}
        {done && (
          <p className="notice notice--ok" role="status" data-testid="rules-done">
            {done}
          </p>
        )}

        <Card title="Reguli">
          {!rules && !error && <p className="loading">Se încarcă regulile…</p>}
          {rules && rules.length === 0 && <p className="empty-state">Nu există reguli: toate UAT-urile sincronizate urmează frecvența implicită.</p>}
          {rules && rules.length > 0 && (
            <div className="table-wrap">
              <table className="table" data-testid="rules-table">
                <thead>
                  <tr>
                    <th>Țintă</th>
                    <th>Frecvență</th>
                    <th>Prioritate</th>
                    <th>Pași</th>
                    <th>Ferestre</th>
                    <th>Ultima rulare</th>
                    <th>Următoarea</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {rules.map((r) => (
                    <tr key={r.id} data-rule={r.id}>
                      <td>
                        {ruleTarget(r, names.get(r.siruta ?? 0))}
                        {!r.enabled && <span className="badge badge--muted">oprită</span>}
                      </td>
                      <td>{FREQUENCY_LABEL[r.frequency]}</td>
                      <td>{r.priority}</td>
                      <td className="nowrap" title={r.steps.map((s) => STEP_LABEL[s]).join(', ')}>
                        {r.steps.join(' ')}
                      </td>
                      <td>{formatWindows(r.windows)}</td>
                      <td>{formatWhen(r.lastRunAt)}</td>
                      <td>{formatWhen(r.nextDueAt)}</td>
                      <td className="actions">
                        <button type="button" className="btn btn--secondary" disabled={locked} onClick={() => setForm(formOf(r, names))}>
                          Modifică
                        </button>{' '}
                        <button type="button" className="btn btn--danger" disabled={locked} onClick={() => remove(r)}>
                          Șterge
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Card>

        <Card
          title={
            form.id
              ? `Modifică regula: ${ruleTarget(
                  {
                    scope: form.scope === 'uat' ? 'uat' : 'county',
                    siruta: form.uat?.siruta ?? null,
                    county: form.county,
                  },
                  form.uat?.name
                )}`
              : 'Regulă nouă'
          }
        >
          <form
            data-testid="rule-form"
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            {!form.id && (
              <fieldset className="form-row">
                <legend className="field__label">Se aplică</legend>
                {(
                  [
                    ['county', 'unui județ'],
                    ['uat', 'unui UAT'],
                    ['bulk', 'fiecărui UAT dintr-un județ (creare în masă)'],
                  ] as const
                ).map(([k, label]) => (
                  <label key={k}>
                    <input type="radio" name="scope" value={k} checked={form.scope === k} onChange={() => set({ scope: k })} /> {label}
                  </label>
                ))}
              </fieldset>
            )}
            <div className="form-row">
              {!form.id && form.scope === 'uat' && <UatPicker value={form.uat} onPick={(u) => set({ uat: u })} label="UAT" />}
              {!form.id && form.scope !== 'uat' && (
                <label className="field">
                  <span>Județ</span>
                  <select name="county" value={form.county} onChange={(e) => set({ county: e.target.value })}>
                    <option value="">— alegeți —</option>
                    {counties.map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              <FrequencyField name="frequency" label="Frecvență" value={form.frequency} onChange={(frequency) => set({ frequency })} />
              <label className="field">
                <span>Prioritate (1 = cea mai mare)</span>
                <input name="priority" type="number" min={1} max={10} value={form.priority} onChange={(e) => set({ priority: Number(e.target.value) })} />
              </label>
              <label>
                <input type="checkbox" name="enabled" checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> activă
              </label>
            </div>
            <fieldset className="form-row">
              <legend className="field__label">Pași (în această ordine)</legend>
              {STEP_CODES.map((s) => (
                <label key={s}>
                  <input
                    type="checkbox"
                    name={`step-${s}`}
                    checked={form.steps.includes(s)}
                    onChange={(e) =>
                      set({
                        steps: e.target.checked ? STEP_CODES.filter((c) => c === s || form.steps.includes(c)) : form.steps.filter((c) => c !== s),
                      })
                    }
                  />{' '}
                  {s} · {STEP_LABEL[s]}
                </label>
              ))}
            </fieldset>
            <fieldset>
              <legend className="field__label">Ferestre (ora României; fără ferestre: oricând)</legend>
              {form.windows.map((w, i) => (
                <div className="form-row" key={i} data-testid={`window-${i}`}>
                  {[1, 2, 3, 4, 5, 6, 7].map((d) => (
                    <label key={d} title={DAY_LONG[d]}>
                      <input
                        type="checkbox"
                        name={`window-${i}-day-${d}`}
                        checked={w.days.includes(d)}
                        onChange={(e) =>
                          setWindow(i, {
                            days: e.target.checked ? [...w.days, d] : w.days.filter((x) => x !== d),
                          })
                        }
                      />{' '}
                      {DAY_SHORT[d]}
                    </label>
                  ))}
                  <label className="field">
                    <span>De la</span>
                    <input name={`window-${i}-start`} type="time" value={w.start} onChange={(e) => setWindow(i, { start: e.target.value })} />
                  </label>
                  <label className="field">
                    <span>Până la</span>
                    <input name={`window-${i}-end`} type="time" value={w.end} onChange={(e) => setWindow(i, { end: e.target.value })} />
                  </label>
                  <span className="field__hint">{w.end && w.start && w.end <= w.start ? 'se încheie a doua zi' : ''}</span>
                  <button type="button" className="btn btn--secondary" onClick={() => setWindows((ws) => ws.filter((_, j) => j !== i))}>
                    Elimină fereastra
                  </button>
                </div>
              ))}
              <button type="button" className="btn btn--secondary" onClick={() => setWindows((ws) => [...ws, { days: [5, 6, 7], start: '23:00', end: '04:00' }])}>
                Adaugă o fereastră
              </button>
            </fieldset>
            <div className="form-row">
              <button type="submit" className="btn btn--primary" disabled={locked} data-testid="rule-submit">
                {form.id ? 'Salvează modificările' : form.scope === 'bulk' ? 'Creează regulile județului' : 'Creează regula'}
              </button>
              {form.id && (
                <button type="button" className="btn btn--secondary" onClick={() => setForm(EMPTY_FORM)}>
                  Renunță
                </button>
              )}
            </div>
          </form>
        </Card>

        <Card title="Ce rulează și când">
          <div className="form-row">
            <FrequencyField name="defaultFrequency" label="Frecvența implicită (UAT-uri fără regulă)" value={defaultFrequency} onChange={setDefaultFrequency} />
            <button type="button" className="btn btn--secondary" disabled={locked || defaultFrequency === scheduler?.defaultFrequency} onClick={() => void saveDefault()}>
              Salvează frecvența implicită
            </button>
          </div>
          <p className="field__hint">
            Planificatorul verifică regulile la fiecare 15 minute și pornește UAT-urile datorate, prioritatea 1 întâi, doar în ferestrele regulii. UAT-urile fără regulă se
            reîmprospătează în nopțile lucrătoare, 01:00–05:00.
          </p>
          {scheduler && scheduler.due.length === 0 && <p className="empty-state">Niciun UAT planificat: nu există reguli și niciun UAT sincronizat.</p>}
          {scheduler && scheduler.due.length > 0 && (
            <div className="table-wrap">
              <label className="field rules__filter">
                <span>Caută UAT sau județ</span>
                <input name="upcoming-filter" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="de ex. Covasna" />
              </label>
              <table className="table" data-testid="rules-upcoming">
                <thead>
                  <tr>
                    <th>Pornește</th>
                    <th>UAT</th>
                    <th>Regula</th>
                    <th>Frecvență</th>
                    <th>Prioritate</th>
                    <th>Pași</th>
                    <th>Ultima sincronizare</th>
                  </tr>
                </thead>
                <tbody>
                  {upcoming.slice(0, UPCOMING_ROWS).map((d) => (
                    <tr key={d.siruta}>
                      <td>{d.runAt ? formatWhen(d.runAt) : 'niciodată singur'}</td>
                      <td>
                        {d.name}{' '}
                        <small>
                          ({d.siruta}
                          {d.county ? `, ${d.county}` : ''})
                        </small>
                      </td>
                      <td>{SOURCE_LABEL[d.source]}</td>
                      <td>{FREQUENCY_LABEL[d.frequency]}</td>
                      <td>{d.priority}</td>
                      <td className="nowrap">{d.steps.join(' ')}</td>
                      <td>{formatWhen(d.lastSyncAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {upcoming.length > UPCOMING_ROWS && <p className="muted">și încă {upcoming.length - UPCOMING_ROWS} UAT-uri mai târziu.</p>}
            </div>
          )}
        </Card>
      </div>
    </ParcelSyncLayout>
  );
}
