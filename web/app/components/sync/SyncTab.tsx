/**
 * The "Sincronizare" tab of /parcel-sync (issue 5 item 7): the shared portal connection (spec
 * 3.1: state polled every 30 s, connect/disconnect, maintenance banner, auto-reconnect once the
 * portal recovers), the shared UAT picker (./UatPicker), sync actions (base, magic, county) with
 * live progress bars fed by `GET /api/landreg/progress`, the no-geometry scan of a UAT (spec 4.4,
 * one bounded request), and the store summary. The first render uses the loader's data;
 * every action goes through the API, and an error shows the Romanian `message` of its body.
 */
import type { JobProgress } from '../../../../domain/landreg/rules';
import type { NoGeomScan } from '../../../../domain/enrichment/service';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Form, Link, useRevalidator, useSearchParams } from '@remix-run/react';
import type { PortalSessionView, StoreSummaryView } from '../../lib/sync.server';
import type { UatChoice } from './uatSearch';
import { UatPicker, UatSummary } from './UatPicker';
import { QgisProjectHint, QgisProjectLink } from '../tools/QgisProjectLink';
import { Card } from '../Card';
import { formatWhen } from '../../lib/dates';
import { countOf, layerCategoryLabel, layerLabel, syncPhaseLabel } from '../../lib/words';
import { Fact } from '../Fact';
import { api } from '../../lib/api';
import { UAT_SEARCH_MAX_CHARS } from '../../../../domain/landreg/rules';

const SESSION_POLL_MS = 30_000;
const PROGRESS_POLL_MS = 1000;

const nf = new Intl.NumberFormat('ro-RO');
const fmtInt = (n: number) => nf.format(n);
const fmtDate = (iso: string | null | undefined) => formatWhen(iso, 'dateTime');
function fmtBytes(b: number): string {
  if (b >= 1024 ** 3) return `${(b / 1024 ** 3).toLocaleString('ro-RO', { maximumFractionDigits: 1 })} GB`;
  return `${(b / 1024 ** 2).toLocaleString('ro-RO', { maximumFractionDigits: 0 })} MB`;
}

// ---- portal connection -----------------------------------------------------------------------

/**
 * The shared portal account's card. Disconnecting it stops the portal for the whole office, so
 * only administrators get the button (the route refuses anyone else, issue 25); a user who may
 * not use it does not see it (issue 30).
 */
export function ConnectionCard({ session, isAdmin, onChange }: { session: PortalSessionView; isAdmin: boolean; onChange: (s: PortalSessionView) => void }) {
  const [busy, setBusy] = useState<'connect' | 'disconnect' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [autoReconnect, setAutoReconnect] = useState(true);
  const [notice, setNotice] = useState<string | null>(null);
  const prevMaintenance = useRef(session.portalMaintenance);

  const act = useCallback(
    async (action: 'connect' | 'disconnect', auto = false) => {
      setBusy(action);
      setError(null);
      setNotice(null);
      try {
        const s = await api.post<PortalSessionView>('/api/landreg/session', { body: { action } });
        onChange(s);
        if (auto) setNotice('Portalul și-a revenit din mentenanță: conexiunea a fost refăcută automat.');
      } catch (err) {
        setError((err as Error).message);
      } finally {
        setBusy(null);
      }
    },
    [onChange],
  );

  // Spec 3.1: poll the session every 30 s.
  useEffect(() => {
    const t = setInterval(() => {
      api.get<PortalSessionView>('/api/landreg/session').then(onChange, () => undefined);
    }, SESSION_POLL_MS);
    return () => clearInterval(t);
  }, [onChange]);

  // Spec 3.1: once the portal recovers from maintenance, connect again on our own.
  useEffect(() => {
    const was = prevMaintenance.current;
    prevMaintenance.current = session.portalMaintenance;
    if (was && !session.portalMaintenance && !session.connected && autoReconnect && busy === null) void act('connect', true);
  }, [session.portalMaintenance, session.connected, autoReconnect, busy, act]);

  const state = session.portalMaintenance ? 'maintenance' : session.connected ? 'connected' : 'disconnected';
  const label = { connected: 'Conectat', disconnected: 'Deconectat', maintenance: 'Portal în mentenanță' }[state];
  return (
    <Card
      className="sync-conn"
      title="Conexiunea cu portalul de cadastru"
      testId="sync-connection"
      actions={
        <span className={`sync-state sync-state--${state}`} data-testid="sync-connection-state">
          <span className="sync-state__dot" aria-hidden="true" />
          {label}
        </span>
      }
    >
      {session.portalMaintenance && (
        <p className="notice notice--warn sync-banner" role="status">
          <strong>Portalul de cadastru este în mentenanță.</strong> Conectarea și sincronizările sunt suspendate
          {autoReconnect ? '; conexiunea se reface automat când portalul revine.' : '.'}
        </p>
      )}
      <dl className="sync-facts">
        <Fact label="Utilizator portal">{session.connected ? (session.username ?? '—') : '—'}</Fact>
        <Fact label="Conectat din">{session.connected ? fmtDate(session.connectedAt) : '—'}</Fact>
        <Fact label="Lucrări active">{fmtInt(session.runningJobs)}</Fact>
        <Fact label="Ultima verificare">
          {fmtDate(session.lastHealthCheckAt)}
          {session.consecutiveFailures > 0 && <span className="badge badge--online">{countOf(session.consecutiveFailures, 'eșec', 'eșecuri')} la rând</span>}
        </Fact>
      </dl>
      <div className="sync-conn__actions">
        {session.connected ? (
          isAdmin && (
          <button
            type="button"
            className="btn btn--danger"
            disabled={busy !== null}
            onClick={() => void act('disconnect')}
            title={session.runningJobs > 0 ? 'Deconectarea este refuzată cât timp rulează lucrări.' : undefined}
            data-testid="sync-disconnect"
          >
            {busy === 'disconnect' ? 'Se deconectează…' : 'Deconectare'}
          </button>
          )
        ) : (
          <button type="button" className="btn btn--primary" disabled={busy !== null || session.portalMaintenance} onClick={() => void act('connect')} data-testid="sync-connect">
            {busy === 'connect' ? 'Se conectează…' : 'Conectare la portal'}
          </button>
        )}
        <label className="sync-check">
          <input type="checkbox" checked={autoReconnect} onChange={(e) => setAutoReconnect(e.target.checked)} />
          Reconectare automată după mentenanță
        </label>
        <span className="muted sync-conn__hint">Sesiunea este comună pentru toți utilizatorii; starea se actualizează la 30 de secunde.</span>
      </div>
      {error && (
        <p className="notice notice--fail" role="alert">
          {error}
        </p>
      )}
      {notice && <p className="notice notice--ok">{notice}</p>}
    </Card>
  );
}

// ---- sync jobs -------------------------------------------------------------------------------

/** The progress route's answer (CONTRACT.md section 4), as the domain defines it. */
type Progress = JobProgress;

interface Job {
  jobId: string;
  progressUrl: string;
  title: string;
  progress: Progress | null;
  error: string | null;
}


function JobRow({ job }: { job: Job }) {
  const p = job.progress;
  const status = job.error ? 'failed' : (p?.status ?? 'running');
  const percent = p?.status === 'done' ? 100 : (p?.percent ?? 0);
  const phase = syncPhaseLabel(p?.phase);
  return (
    <li className={`sync-job sync-job--${status}`} data-testid="sync-job">
      <div className="sync-job__head">
        <strong>{job.title}</strong>
        <span className="sync-job__status">
          {status === 'running' ? `${phase} · ${percent}%` : status === 'done' ? 'Finalizată' : 'Eșuată'}
        </span>
      </div>
      <div className="sync-bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-label={job.title}>
        <div className="sync-bar__fill" style={{ width: `${Math.max(percent, status === 'running' ? 2 : 0)}%` }} />
      </div>
      <p className="sync-job__msg">{job.error ?? (p?.status === 'failed' ? (p.error ?? p.message) : (p?.message ?? 'Lucrarea pornește…'))}</p>
    </li>
  );
}

/** The picked UAT with its parcels as the store holds them after a job of this page ended (the picker's count was read before it). */
function withStoreCount(uat: UatChoice, held: { siruta: number; parcels: number } | null): UatChoice {
  return held?.siruta === uat.siruta ? { ...uat, parcels: held.parcels } : uat;
}

/** One UAT's parcels in the store now: its sync status's parcel layer (a small read of that UAT). */
async function storedParcels(siruta: number): Promise<number> {
  const status = await api.get<{ items: Array<{ layerId: string; featureCount: number }> }>('/api/landreg/sync-status', { query: { siruta } });
  return status.items.find((i) => i.layerId === 'TERENURI_ACTIVE')?.featureCount ?? 0;
}

function SyncActions(props: {
  connected: boolean;
  useCentralApi: boolean;
  initialUat: UatChoice | null;
  onUat: (u: UatChoice | null) => void;
  onJobDone: () => void;
}) {
  const { connected, useCentralApi } = props;
  const [uat, setUatState] = useState<UatChoice | null>(props.initialUat);
  const onUat = props.onUat;
  const setUat = useCallback(
    (u: UatChoice | null) => {
      setUatState(u);
      onUat(u);
    },
    [onUat],
  );
  const [jobs, setJobs] = useState<Job[]>([]);
  const [starting, setStarting] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const [held, setHeld] = useState<{ siruta: number; parcels: number } | null>(null);
  const picked = useRef(uat);
  picked.current = uat;
  const onJobDoneProp = props.onJobDone;
  // A job ended: the summary reloads, and the picked UAT's line reads its parcels again.
  const onJobDone = useCallback(() => {
    onJobDoneProp();
    const u = picked.current;
    if (u) void storedParcels(u.siruta).then((parcels) => setHeld({ siruta: u.siruta, parcels }), () => undefined);
  }, [onJobDoneProp]);

  useEffect(() => {
    const t = timers.current;
    return () => t.forEach((x) => clearTimeout(x));
  }, []);

  const update = (jobId: string, patch: Partial<Job>) => setJobs((js) => js.map((j) => (j.jobId === jobId ? { ...j, ...patch } : j)));

  const follow = useCallback(
    (job: Job) => {
      const poll = async () => {
        try {
          const p = await api.get<Progress>('/api/landreg/progress', { query: { jobId: job.jobId } });
          update(job.jobId, { progress: p });
          if (p.status === 'running') timers.current.set(job.jobId, setTimeout(poll, PROGRESS_POLL_MS));
          else onJobDone();
        } catch (err) {
          update(job.jobId, { error: (err as Error).message });
        }
      };
      void poll();
    },
    [onJobDone],
  );

  async function start(key: string, path: '/api/landreg/sync-background' | '/api/landreg/sync-county', body: unknown, title: string) {
    setStarting(key);
    setError(null);
    try {
      const r = await api.post<{ jobId: string; progressUrl: string }>(path, { body });
      const job: Job = { ...r, title, progress: null, error: null };
      setJobs((js) => [job, ...js.filter((j) => j.jobId !== r.jobId)].slice(0, 8));
      follow(job);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setStarting(null);
    }
  }

  const disabled = !uat || !connected || useCentralApi || starting !== null;
  return (
    <>
      <Card title="Sincronizare UAT">
        <UatPicker value={uat} onPick={setUat} />
        {uat && <UatSummary uat={withStoreCount(uat, held)} />}
        {uat && (withStoreCount(uat, held).parcels ?? 0) > 0 && (
          <p className="muted">
            <QgisProjectLink siruta={uat.siruta} name={uat.name} className="btn btn--secondary" /> <QgisProjectHint />
          </p>
        )}
        <div className="sync-actions">
          <button
            type="button"
            className="btn btn--primary"
            disabled={disabled}
            data-testid="sync-base"
            onClick={() => uat && void start('base', '/api/landreg/sync-background', { siruta: uat.siruta, mode: 'base' }, `Sincronizare de bază · ${uat.name}`)}
          >
            {starting === 'base' ? 'Se pornește…' : 'Sincronizare de bază'}
          </button>
          <button
            type="button"
            className="btn btn--secondary"
            disabled={disabled}
            data-testid="sync-magic"
            onClick={() => uat && void start('magic', '/api/landreg/sync-background', { siruta: uat.siruta, mode: 'magic' }, `Sincronizare completă · ${uat.name}`)}
          >
            {starting === 'magic' ? 'Se pornește…' : 'Sincronizare completă (cu date din cartea funciară)'}
          </button>
          <button
            type="button"
            className="btn btn--secondary"
            disabled={disabled || !uat?.county}
            data-testid="sync-county"
            onClick={() => uat?.county && void start('county', '/api/landreg/sync-county', { county: uat.county }, `Sincronizare județ · ${uat.county}`)}
          >
            {starting === 'county' ? 'Se pornește…' : uat?.county ? `Sincronizează județul ${uat.county}` : 'Sincronizare județ'}
          </button>
        </div>
        <p className="muted sync-help">
          De bază: parcele și clădiri, doar diferențele față de baza locală. Completă: în plus proprietari, adrese și suprafețe din cartea funciară. Județ: toate
          UAT-urile județului, câte două odată; primiți o notificare la final.
        </p>
        {useCentralApi && <p className="notice notice--warn">Contul dumneavoastră folosește API-ul central: sincronizarea locală nu este disponibilă.</p>}
        {!connected && !useCentralApi && <p className="notice notice--warn">Conectați-vă la portalul de cadastru pentru a porni o sincronizare.</p>}
        {error && (
          <p className="notice notice--fail" role="alert" data-testid="sync-error">
            {error}
          </p>
        )}
      </Card>

      <NoGeomScanCard uat={uat} disabled={!connected || useCentralApi} />

      {jobs.length > 0 && (
        <Card title="Lucrări de sincronizare" ariaLive="polite">
          <ul className="sync-jobs">
            {jobs.map((j) => (
              <JobRow key={j.jobId} job={j} />
            ))}
          </ul>
        </Card>
      )}
    </>
  );
}

// ---- no-geometry scan ------------------------------------------------------------------------

/** `POST /api/landreg/no-geom-scan`'s answer (spec 4.4): the scan without the portal's workspace key. */
type NoGeomScanAnswer = Omit<NoGeomScan, 'workspacePk'>;

/** The route's own limit (domain/enrichment/rules.ts NO_GEOM_SCAN_TIMEOUT_MS). */
const SCAN_LIMIT_S = 120;

/**
 * The no-geometry scan of one UAT (spec 4.4 no-geom-scan): the portal's immovable list against
 * its parcel layer, page by page, answered in one request bounded by the route's 120 s. While it
 * runs the card shows the time spent against that limit; "Oprește" drops the request, and the
 * route stops its portal calls when its caller leaves.
 */
function NoGeomScanCard({ uat, disabled }: { uat: UatChoice | null; disabled: boolean }) {
  const [running, setRunning] = useState<{ siruta: number; startedAt: number; stop: AbortController } | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [result, setResult] = useState<{ name: string; scan: NoGeomScanAnswer } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setElapsed(Math.floor((Date.now() - running.startedAt) / 1000)), 1000);
    return () => clearInterval(t);
  }, [running]);
  useEffect(() => () => running?.stop.abort(), [running]);

  const scan = async () => {
    if (!uat) return;
    const stop = new AbortController();
    setRunning({ siruta: uat.siruta, startedAt: Date.now(), stop });
    setElapsed(0);
    setError(null);
    setResult(null);
    try {
      setResult({ name: uat.name, scan: await api.post<NoGeomScanAnswer>('/api/landreg/no-geom-scan', { body: { siruta: uat.siruta }, signal: stop.signal }) });
    } catch (err) {
      setError(stop.signal.aborted ? 'Scanarea a fost oprită.' : (err as Error).message);
    } finally {
      setRunning(null);
    }
  };

  const percent = Math.min(99, Math.round((elapsed / SCAN_LIMIT_S) * 100));
  return (
    <Card title="Imobile fără geometrie" testId="nogeom-scan">
      <p className="muted sync-help">
        Compară lista imobilelor UAT-ului din portal cu stratul de parcele: câte imobile nu au desen. Durează cel mult 2 minute; nu modifică baza locală (importul
        lor este pasul N al regulilor de sincronizare).
      </p>
      <div className="sync-actions">
        <button type="button" className="btn btn--secondary" disabled={disabled || !uat || running !== null} onClick={() => void scan()} data-testid="nogeom-scan-start">
          {running ? 'Se scanează…' : uat ? `Scanează ${uat.name}` : 'Scanează imobilele fără geometrie'}
        </button>
        {running && (
          <button type="button" className="btn btn--ghost" onClick={() => running.stop.abort()}>
            Oprește
          </button>
        )}
      </div>
      {running && (
        <div className="sync-job sync-job--running" data-testid="nogeom-scan-progress">
          <div className="sync-bar" role="progressbar" aria-valuemin={0} aria-valuemax={SCAN_LIMIT_S} aria-valuenow={elapsed} aria-label="Scanarea imobilelor fără geometrie">
            <div className="sync-bar__fill" style={{ width: `${Math.max(percent, 2)}%` }} />
          </div>
          <p className="sync-job__msg">
            Se citesc paginile portalului… {elapsed} s din cel mult {SCAN_LIMIT_S} s.
          </p>
        </div>
      )}
      {error && (
        <p className="notice notice--fail" role="alert">
          {error}
        </p>
      )}
      {result && (
        <dl className="sync-facts" data-testid="nogeom-scan-result">
          <Fact label={`Imobile în portal (${result.name})`}>{fmtInt(result.scan.totalImmovables)}</Fact>
          <Fact label="Parcele cu geometrie">{fmtInt(result.scan.withGeometry)}</Fact>
          <Fact label="Imobile fără geometrie">{fmtInt(result.scan.withoutGeometry)}</Fact>
          <Fact label="Potrivite după ID / după nr. cadastral">
            {fmtInt(result.scan.matchedById)} / {fmtInt(result.scan.matchedByRef)}
          </Fact>
          <Fact label="Clădiri în portal">{fmtInt(result.scan.remoteCladiriCount)}</Fact>
          <Fact label="Scanat la">{fmtDate(result.scan.scannedAt)}</Fact>
        </dl>
      )}
    </Card>
  );
}

// ---- store summary ---------------------------------------------------------------------------

/** One table of the store summary: its caption, its column heads (`num`: a right-aligned number column), the rows. */
function SummaryTable({ wrapClass, caption, columns, children }: { wrapClass: string; caption: string; columns: Array<[head: string, num?: 'num']>; children: ReactNode }) {
  return (
    // Focusable so a keyboard scrolls a table wider than a phone (axe scrollable-region-focusable).
    <div className={`table-wrap ${wrapClass}`} tabIndex={0} role="region" aria-label={caption}>
      <table className="table sync-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map(([head, num]) => (
              <th key={head} className={num}>
                {head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * The search box and pages of the table of the store's UATs (`?uatQ=`, `?uatPage=` of this page,
 * its other parameters kept): an office that synced whole counties holds thousands of UATs.
 */
function UatTableControls({ page }: { page: StoreSummaryView['uats'] }) {
  const [params] = useSearchParams();
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
  const kept = [...params].filter(([k]) => k !== 'uatQ' && k !== 'uatPage');
  const at = (n: number) => {
    const next = new URLSearchParams(kept);
    if (page.q) next.set('uatQ', page.q);
    if (n > 1) next.set('uatPage', String(n));
    return `?${next.toString()}`;
  };
  const first = (page.page - 1) * page.pageSize + 1;
  const last = Math.min(page.total, page.page * page.pageSize);
  return (
    <div className="sync-uats-controls">
      <Form method="get" preventScrollReset className="form-row" role="search" aria-label="UAT-urile din baza locală">
        {kept.map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <input type="search" className="input" name="uatQ" defaultValue={page.q} maxLength={UAT_SEARCH_MAX_CHARS} placeholder="Caută UAT, județ sau SIRUTA" aria-label="Caută UAT, județ sau SIRUTA" data-testid="sync-uats-q" />
        <button type="submit" className="btn btn--secondary">
          Caută
        </button>
      </Form>
      {page.total > 0 && (
        <nav className="sync-uats-pages" aria-label="Paginile tabelului pe UAT" data-testid="sync-uats-pages">
          <span className="muted">
            UAT-urile {fmtInt(first)}–{fmtInt(last)} din {fmtInt(page.total)}
          </span>
          {page.page > 1 && (
            <Link to={at(page.page - 1)} preventScrollReset className="btn btn--secondary" rel="prev">
              ‹ Înapoi
            </Link>
          )}
          {page.page < pages && (
            <Link to={at(page.page + 1)} preventScrollReset className="btn btn--secondary" rel="next">
              Înainte ›
            </Link>
          )}
        </nav>
      )}
    </div>
  );
}

function StoreSummary({ store, refreshing }: { store: StoreSummaryView; refreshing: boolean }) {
  const { stats } = store;
  const layers = store.layers.filter((l) => l.features > 0);
  return (
    <Card
      title="Baza locală"
      testId="sync-store"
      actions={<span className="muted">{refreshing ? 'Se actualizează…' : `Ultima sincronizare: ${fmtDate(stats.lastSyncAt)}`}</span>}
    >
      <div className="stats">
        <div className="stat">
          <span className="stat__value">{fmtInt(stats.uatsWithFeatures)}</span>
          <span className="stat__label">UAT-uri cu date (din {fmtInt(stats.uats)})</span>
        </div>
        <div className="stat">
          <span className="stat__value">{fmtInt(stats.parcels)}</span>
          <span className="stat__label">parcele</span>
        </div>
        <div className="stat">
          <span className="stat__value">{fmtInt(stats.buildings)}</span>
          <span className="stat__label">clădiri</span>
        </div>
        <div className="stat">
          <span className="stat__value">{fmtInt(stats.enrichedParcels)}</span>
          <span className="stat__label">parcele îmbogățite</span>
        </div>
        <div className="stat">
          <span className="stat__value">{fmtBytes(stats.storeSizeBytes)}</span>
          <span className="stat__label">spațiu ocupat</span>
        </div>
      </div>

      {stats.uatsWithFeatures === 0 ? (
        <p className="sync-empty">Baza locală nu conține încă niciun UAT. Alegeți un UAT mai sus și porniți o sincronizare de bază.</p>
      ) : (
        <>
          <UatTableControls page={store.uats} />
          {store.uats.total === 0 ? (
            <p className="sync-empty" data-testid="sync-uats-none">
              Niciun UAT din baza locală nu se potrivește cu „{store.uats.q}”.
            </p>
          ) : (
            <SummaryTable
              wrapClass="sync-table-wrap"
              caption="Pe UAT"
              columns={[['UAT'], ['Județ'], ['Parcele', 'num'], ['Clădiri', 'num'], ['Fără geometrie', 'num'], ['Îmbogățite', 'num'], ['De reîmbogățit', 'num'], ['Ultima sincronizare']]}
            >
              {store.uats.uats.map((u) => {
                const p = u.layers.TERENURI_ACTIVE;
                const b = u.layers.CLADIRI_ACTIVE;
                return (
                  <tr key={u.siruta}>
                    <td>
                      {u.name ?? '—'} <span className="muted">({u.siruta})</span>
                    </td>
                    <td>{u.county ?? '—'}</td>
                    <td className="num">{p ? fmtInt(p.total) : '—'}</td>
                    <td className="num">{b ? fmtInt(b.total) : '—'}</td>
                    {/* Every parcel without a drawing: the immovables imported without one and the portal's parcels that have none. */}
                    <td className="num">{p ? fmtInt(p.total - p.withGeometry) : '—'}</td>
                    <td className="num">
                      {p && p.total > 0 ? (
                        <>
                          {fmtInt(p.enriched)} <span className="muted">({Math.round((100 * p.enriched) / p.total)}%)</span>
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td className="num">{p ? fmtInt(p.reenrichMarked) : '—'}</td>
                    <td>{fmtDate(u.lastSyncAt)}</td>
                  </tr>
                );
              })}
            </SummaryTable>
          )}
        </>
      )}

      {layers.length > 0 && (
        <SummaryTable wrapClass="sync-table--layers" caption="Pe strat" columns={[['Strat'], ['Categorie'], ['Obiecte', 'num'], ['UAT-uri', 'num']]}>
          {layers.map((l) => (
            <tr key={l.layerId}>
              <td>{layerLabel(l.layerId, l.name)}</td>
              <td>{layerCategoryLabel(l.category)}</td>
              <td className="num">{fmtInt(l.features)}</td>
              <td className="num">{fmtInt(l.uats)}</td>
            </tr>
          ))}
        </SummaryTable>
      )}
    </Card>
  );
}

// ---- the tab ---------------------------------------------------------------------------------

export function SyncTab(props: {
  session: PortalSessionView;
  store: StoreSummaryView;
  useCentralApi: boolean;
  /** Administrators may disconnect the shared portal account. */
  isAdmin: boolean;
  /** Preselected UAT (`/parcel-sync?siruta=`), e.g. coming from another tab. */
  initialUat?: UatChoice | null;
  /** The picked UAT, so the page's tabs can carry it along. */
  onUat?: (u: UatChoice | null) => void;
}) {
  const [session, setSession] = useState(props.session);
  const revalidator = useRevalidator();
  useEffect(() => setSession(props.session), [props.session]);
  const onSession = useCallback((s: PortalSessionView) => setSession(s), []);
  // The revalidator object changes on every render; keep the callback stable for the pollers.
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;
  const onJobDone = useCallback(() => revalidate.current(), []);
  const onUatProp = useRef(props.onUat);
  onUatProp.current = props.onUat;
  const onUat = useCallback((u: UatChoice | null) => onUatProp.current?.(u), []);
  return (
    <div className="sync-tab">
      <ConnectionCard session={session} isAdmin={props.isAdmin} onChange={onSession} />
      <SyncActions
        connected={session.connected && !session.portalMaintenance}
        useCentralApi={props.useCentralApi}
        initialUat={props.initialUat ?? null}
        onUat={onUat}
        onJobDone={onJobDone}
      />
      <StoreSummary store={props.store} refreshing={revalidator.state === 'loading'} />
    </div>
  );
}
