/**
 * /parcel-sync/weekend: the weekend deep sync queue (spec 3.4): each city's four step states, the
 * session state and current activity, whether the window is open and when the next one starts,
 * and the add / remove / trigger / pause / resume actions. Everything goes through
 * GET|POST /api/landreg/weekend-sync (the browser calls the API with its session cookie), so the
 * page shows exactly what the API answers.
 */
import { useCallback, useEffect, useState } from 'react';
import { useLoaderData } from '@remix-run/react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import { requireSession } from '../lib/auth.server';
import { ParcelSyncLayout } from '../components/sync/ParcelSyncLayout';
import { Card } from '../components/Card';
import { formatWhen } from '../lib/dates';
import { UatPicker } from '../components/sync/UatPicker';
import type { UatChoice } from '../components/sync/uatSearch';
import { api } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'Sincronizare de weekend · Sincronizare parcele' }];
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: parcelSyncCss }];

export function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  return { isAdmin: auth.isAdmin };
}

type Step = 'sync_terenuri' | 'sync_cladiri' | 'import_nogeom' | 'enrich';
type StepState = 'pending' | 'running' | 'done' | 'error' | 'skipped';
interface WeekendView {
  queue: Array<{ siruta: number; name: string; steps: Record<Step, StepState>; lastError?: string }>;
  syncStatus: 'idle' | 'running' | 'waiting_window' | 'paused';
  currentActivity: string | null;
  inWeekendWindow: boolean;
  nextWindowStart: string | null;
  forced?: boolean;
  paused?: boolean;
}

const STEPS: Array<[Step, string]> = [
  ['sync_terenuri', 'Terenuri'],
  ['sync_cladiri', 'Clădiri'],
  ['import_nogeom', 'Fără geometrie'],
  ['enrich', 'Îmbogățire'],
];
const STATE_LABEL: Record<StepState, string> = { pending: 'în așteptare', running: 'în curs', done: 'gata', error: 'eroare', skipped: 'omis' };
const STATUS_LABEL: Record<WeekendView['syncStatus'], string> = {
  idle: 'inactivă',
  running: 'rulează',
  waiting_window: 'așteaptă fereastra',
  paused: 'în pauză',
};

const when = (iso: string) => formatWhen(iso, 'dateTimeFull');

export default function WeekendSync() {
  const { isAdmin } = useLoaderData<typeof loader>();
  const [view, setView] = useState<WeekendView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The queue is the office's global setting: administrators change it (issue 25); everyone sees it.
  const locked = busy || !isAdmin;
  const [newCity, setNewCity] = useState<UatChoice | null>(null);
  // A new picker after each city added: an empty box for the next one.
  const [added, setAdded] = useState(0);

  const load = useCallback(async () => {
    try {
      setView(await api.get<WeekendView>('/api/landreg/weekend-sync'));
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }, []);
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 15_000);
    return () => clearInterval(t);
  }, [load]);

  const act = async (action: 'add' | 'remove' | 'trigger' | 'pause' | 'resume', siruta?: number) => {
    setBusy(true);
    try {
      setView(await api.post<WeekendView>('/api/landreg/weekend-sync', { body: siruta === undefined ? { action } : { action, siruta } }));
      setError(null);
      if (action === 'add') {
        setNewCity(null);
        setAdded((n) => n + 1);
      }
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <ParcelSyncLayout active="weekend" siruta={null} title="Sincronizare de weekend" sub="Coada localităților sincronizate complet în nopțile de vineri, sâmbătă și duminică (23:00–04:00).">
      {error && (
        <p className="notice notice--fail" role="alert">
          {error}
        </p>
      )}
      {!isAdmin && (
        <p className="notice notice--warn" data-testid="weekend-admin-notice">
          Coada de weekend este o setare comună a biroului: doar administratorii pot adăuga sau elimina localități, porni, opri ori relua
          sincronizarea. Starea ei o puteți urmări aici.
        </p>
      )}
      {!view && !error && <p className="loading">Se încarcă coada…</p>}
      {view && (
        <>
          <Card testId="weekend-state">
            <p>
              Sesiune: <strong>{STATUS_LABEL[view.syncStatus]}</strong>
              {view.forced ? ' (pornire forțată)' : ''}
              {view.currentActivity ? ` · activitate curentă: ${view.currentActivity}` : ''}
            </p>
            <p>
              {view.inWeekendWindow ? 'Fereastra de weekend este deschisă.' : 'Fereastra de weekend este închisă.'}
              {view.nextWindowStart ? ` Următoarea fereastră începe ${when(view.nextWindowStart)}.` : ''}
            </p>
            <div className="form-row">
              <button type="button" className="btn btn--primary" disabled={locked} onClick={() => void act('trigger')}>
                Pornește acum
              </button>
              {view.syncStatus === 'paused' ? (
                <button type="button" className="btn btn--secondary" disabled={locked} onClick={() => void act('resume')}>
                  Reia
                </button>
              ) : (
                <button type="button" className="btn btn--secondary" disabled={locked} onClick={() => void act('pause')}>
                  Pauză
                </button>
              )}
            </div>
          </Card>
          <Card>
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Coada de weekend">
              <table className="table" data-testid="weekend-queue">
                <thead>
                  <tr>
                    <th>Localitate</th>
                    {STEPS.map(([k, label]) => (
                      <th key={k}>{label}</th>
                    ))}
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {view.queue.map((q) => (
                    <tr key={q.siruta}>
                      <td>
                        {q.name} <small>({q.siruta})</small>
                        {q.lastError && <div className="weekend-step-error">{q.lastError}</div>}
                      </td>
                      {STEPS.map(([k]) => (
                        <td key={k} data-state={q.steps[k]}>
                          <span className={`badge weekend-state weekend-state--${q.steps[k]}`}>{STATE_LABEL[q.steps[k]]}</span>
                        </td>
                      ))}
                      <td className="weekend-actions">
                        <button type="button" className="btn btn--secondary" disabled={locked} onClick={() => void act('trigger', q.siruta)}>
                          Pornește
                        </button>{' '}
                        <button type="button" className="btn btn--danger" disabled={locked} onClick={() => void act('remove', q.siruta)}>
                          Elimină
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <form
              className="form-row"
              onSubmit={(e) => {
                e.preventDefault();
                if (newCity) void act('add', newCity.siruta);
                else setError('Alegeți o localitate din listă (după nume, județ sau cod SIRUTA).');
              }}
            >
              <UatPicker key={added} value={newCity} onPick={setNewCity} label="Localitate de adăugat" />
              <button type="submit" className="btn btn--primary" disabled={locked || !newCity}>
                Adaugă în coadă
              </button>
            </form>
          </Card>
        </>
      )}
    </ParcelSyncLayout>
  );
}
