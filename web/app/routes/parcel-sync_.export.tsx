/**
 * /parcel-sync/export: export a UAT (spec 4.4 export-bundle / export-local). The browser starts
 * the job through the API (`POST /api/landreg/export-bundle`), follows it on the progress route
 * (`progressUrl`, polled every second) through every phase, and downloads from `downloadUrl`.
 * The local export (no sync, no portal) streams the ZIP straight from the store.
 */
import { useEffect, useRef, useState } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import exportsCss from '../styles/exports.css?url';
import { requireSession } from '../lib/auth.server';
import { uatOption } from '../lib/enrichment.server';
import { sirutaParam } from '../../../domain/landreg/rules';
import { ParcelSyncLayout } from '../components/sync/ParcelSyncLayout';
import { UatPicker, UatSummary } from '../components/sync/UatPicker';
import type { UatChoice } from '../components/sync/uatSearch';
import { Card } from '../components/Card';
import { api, apiFetch, ApiError } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'Export UAT · Sincronizare parcele' }];
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: exportsCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  // The SIRUTA only preselects the UAT: one the API would refuse is left out.
  const asked = sirutaParam(new URL(request.url).searchParams.get('siruta'));
  const uat = await uatOption(context.services.landreg, asked === 'invalid' ? null : asked).catch(() => null);
  return { uat, useCentralApi: auth.useCentralApi };
}

type Mode = 'base' | 'magic';

interface Progress {
  status: 'running' | 'done' | 'failed';
  phase: string;
  percent: number;
  message: string;
  error?: string;
  result?: { fileName?: string; bytes?: number };
}

interface Job {
  jobId: string;
  progressUrl: string;
  downloadUrl: string;
}

/** The phases of workflows/exportBundle.ts, in order, with their Romanian names. */
const PHASES: Array<[string, string]> = [
  ['verificare', 'Verificare'],
  ['sincronizare', 'Sincronizare'],
  ['import-fara-geometrie', 'Fără geometrie'],
  ['imbogatire', 'Îmbogățire'],
  ['construire', 'Fișiere'],
  ['notificare', 'Notificare'],
  ['gata', 'Gata'],
];

const POLL_MS = 1000;

export default function ExportPage() {
  const d = useLoaderData<typeof loader>();
  const [uat, setUat] = useState<UatChoice | null>(d.uat);
  const siruta = uat?.siruta ?? null;
  const [mode, setMode] = useState<Mode>('magic');
  const [includeNoGeometry, setIncludeNoGeometry] = useState(true);
  const [job, setJob] = useState<Job | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [seen, setSeen] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [localLink, setLocalLink] = useState<{ href: string; name: string } | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  useEffect(() => {
    if (!job) return;
    let stopped = false;
    const poll = async () => {
      try {
        const p = await api.get<Progress>('/api/landreg/progress', { query: { jobId: job.jobId } });
        if (stopped) return;
        setError(null);
        setProgress(p);
        setSeen((s) => (s.includes(p.phase) ? s : [...s, p.phase]));
        if (p.status === 'running') timer.current = setTimeout(poll, POLL_MS);
      } catch (err) {
        if (stopped) return;
        setError((err as Error).message);
        // A poll that failed in passing (the web process restarting, a dropped connection, a busy
        // server) is not the job's end: the page keeps asking, more slowly, instead of freezing
        // with its button disabled. A job the server no longer knows (404) is over.
        const status = err instanceof ApiError ? err.status : 0;
        if (status === 0 || status === 429 || status >= 500) timer.current = setTimeout(poll, POLL_MS * 5);
        else {
          setJob(null);
          setProgress(null);
        }
      }
    };
    void poll();
    return () => {
      stopped = true;
    };
  }, [job]);

  const running = progress?.status === 'running' || (job !== null && progress === null);

  async function startBundle() {
    setError(null);
    setProgress(null);
    setSeen([]);
    setLocalLink(null);
    try {
      setJob(await api.post<Job>('/api/landreg/export-bundle', { body: { siruta, mode, ...(mode === 'magic' ? { includeNoGeometry } : {}) } }));
    } catch (err) {
      setError((err as Error).message);
    }
  }

  async function localExport() {
    setError(null);
    setBusy(true);
    setLocalLink(null);
    try {
      const res = await apiFetch('post', '/api/landreg/export-local', { body: { siruta, mode, ...(mode === 'magic' ? { includeNoGeometry } : {}) } });
      const name = decodeURIComponent(/filename\*=UTF-8''([^;]+)/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export.zip');
      const href = URL.createObjectURL(await res.blob());
      setLocalLink({ href, name });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const phaseState = (key: string): 'done' | 'active' | 'failed' | 'pending' => {
    if (!progress) return 'pending';
    if (progress.status === 'failed' && progress.phase === key) return 'failed';
    if (progress.status === 'done') return 'done';
    if (progress.phase === key) return 'active';
    const at = PHASES.findIndex(([k]) => k === progress.phase);
    const mine = PHASES.findIndex(([k]) => k === key);
    return at > mine ? 'done' : 'pending';
  };

  return (
    <ParcelSyncLayout
      active="export"
      siruta={siruta}
      title="Export UAT"
      sub="GeoPackage, CSV și DXF pentru QGIS și AutoCAD, în Stereo 70 (EPSG:3844). Datele mai vechi de 7 zile se sincronizează mai întâi."
    >
      <Card>
        <form
          className="export-form"
          onSubmit={(e) => {
            e.preventDefault();
            void startBundle();
          }}
        >
          <div className="export-form__uat">
            <div className="form-row">
              <UatPicker value={uat} onPick={setUat} />
            </div>
            {uat && <UatSummary uat={uat} />}
          </div>
          <fieldset className="export-form__group">
            <legend className="field__label">Conținutul arhivei</legend>
            <div className="choice-cards">
              <label className={`choice-card${mode === 'magic' ? ' is-checked' : ''}`}>
                <input type="radio" name="mode" value="magic" checked={mode === 'magic'} onChange={() => setMode('magic')} />
                <span className="choice-card__text">
                  <strong>Complet</strong>
                  <span>Toate înregistrările, îmbogățite cu date din cartea funciară, plus CSV și rapoarte.</span>
                </span>
              </label>
              <label className={`choice-card${mode === 'base' ? ' is-checked' : ''}`}>
                <input type="radio" name="mode" value="base" checked={mode === 'base'} onChange={() => setMode('base')} />
                <span className="choice-card__text">
                  <strong>De bază</strong>
                  <span>Parcele și clădiri cu geometrie, fără îmbogățire.</span>
                </span>
              </label>
            </div>
            <label className={`choice${mode !== 'magic' ? ' is-disabled' : ''}`}>
              <input type="checkbox" checked={includeNoGeometry} disabled={mode !== 'magic'} onChange={(e) => setIncludeNoGeometry(e.target.checked)} />
              Include imobilele fără desen pe hartă (cunoscute doar din cartea funciară)
            </label>
          </fieldset>
          <div className="export-actions">
            <button type="submit" className="btn btn--primary" disabled={d.useCentralApi || running || !siruta} data-testid="export-start">
              {running ? 'Exportul rulează…' : 'Sincronizează și exportă'}
            </button>
            <button type="button" className="btn btn--secondary" disabled={busy || !siruta} onClick={() => void localExport()}>
              {busy ? 'Se pregătește arhiva…' : 'Export local (fără portal)'}
            </button>
            <span className="export-actions__hint">Exportul local folosește doar datele deja sincronizate.</span>
          </div>
        </form>
        {d.useCentralApi && (
          <p className="notice notice--warn">Contul dumneavoastră folosește API-ul central: exportul cu sincronizare nu este disponibil; exportul local rămâne disponibil.</p>
        )}
        {error && (
          <p className="notice notice--fail" role="alert">
            {error}
          </p>
        )}
        {localLink && (
          <p className="notice notice--ok">
            Arhiva este gata: <a href={localLink.href} download={localLink.name}>{localLink.name}</a>
          </p>
        )}
      </Card>

      {job && (
        <Card className="export-progress" title="Progresul exportului" testId="export-progress" ariaLive="polite">
          <progress className="export-progress__bar" max={100} value={progress?.percent ?? 0} />
          <ol className="export-progress__phases">
            {PHASES.filter(([k]) => mode === 'magic' || k !== 'imbogatire').map(([key, label]) => (
              <li key={key} data-state={seen.includes(key) || phaseState(key) !== 'pending' ? phaseState(key) : 'pending'}>
                {label}
              </li>
            ))}
          </ol>
          <p>{progress ? `${progress.percent}% · ${progress.message}` : 'Lucrarea pornește…'}</p>
          {progress?.status === 'failed' && <p className="notice notice--fail" role="alert">{progress.error ?? progress.message}</p>}
          {progress?.status === 'done' && (
            <p className="notice notice--ok">
              <a className="btn btn--primary" href={job.downloadUrl} data-testid="export-download">
                Descarcă {progress.result?.fileName ?? 'arhiva'}
              </a>
            </p>
          )}
        </Card>
      )}
    </ParcelSyncLayout>
  );
}
