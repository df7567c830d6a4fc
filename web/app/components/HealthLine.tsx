/**
 * The live health line: database, Temporal, object storage, mail, the land-registry portal and
 * the last backup, green or red, each with since when it is in that state and the probe's detail
 * in a tooltip. First values come from the page loader; then the browser asks
 * GET /api/health every 15 s. A failed request turns the whole line red with the reason.
 */
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { HEALTH_CHECKS, HEALTH_REFRESH_MS, isHealthReport, type HealthProbe, type HealthReport } from '../lib/health';
import { Card } from './Card';
import { formatWhen } from '../lib/dates';
import { ApiError, api } from '../lib/api';

type FetchState = { kind: 'idle' } | { kind: 'checking' } | { kind: 'failed'; reason: string };

const REQUEST_TIMEOUT_MS = 10_000;

function formatTime(iso: string): string {
  const t = formatWhen(iso, 'time');
  return t === '—' ? '' : t;
}

export function HealthLine({ initial }: { initial: HealthReport | null }) {
  const [report, setReport] = useState<HealthReport | null>(initial);
  const [state, setState] = useState<FetchState>(initial ? { kind: 'idle' } : { kind: 'checking' });
  const inFlight = useRef<AbortController | null>(null);

  const refresh = useCallback(async () => {
    if (inFlight.current) return;
    const ctrl = new AbortController();
    inFlight.current = ctrl;
    const timer = setTimeout(() => ctrl.abort(), REQUEST_TIMEOUT_MS);
    setState({ kind: 'checking' });
    try {
      const body = await api.get<unknown>('/api/health', { cache: 'no-store', signal: ctrl.signal });
      if (!isHealthReport(body)) {
        setState({ kind: 'failed', reason: 'răspuns neașteptat de la server' });
        return;
      }
      setReport(body);
      setState({ kind: 'idle' });
    } catch (err) {
      const aborted = err instanceof DOMException && err.name === 'AbortError';
      const reason = aborted
        ? 'serverul nu a răspuns în 10 secunde'
        : err instanceof ApiError && err.status === 401
          ? 'sesiunea a expirat; reîncărcați pagina pentru a vă autentifica din nou'
          : err instanceof ApiError && err.status > 0
            ? err.message
            : 'serverul nu poate fi contactat';
      setState({ kind: 'failed', reason });
    } finally {
      clearTimeout(timer);
      inFlight.current = null;
    }
  }, []);

  useEffect(() => {
    if (!initial) void refresh();
    const id = window.setInterval(() => void refresh(), HEALTH_REFRESH_MS);
    return () => {
      window.clearInterval(id);
      inFlight.current?.abort();
    };
  }, [initial, refresh]);

  const failed = state.kind === 'failed';
  const checking = state.kind === 'checking';
  const allOk = !failed && !!report?.ok;

  return (
    <Card
      className="health"
      title="Starea infrastructurii"
      testId="health-line"
      actions={
        <span className="health__meta" aria-live="polite">
          {checking ? (
            <span className="health__checking">se verifică…</span>
          ) : report ? (
            <>
              {failed ? 'Ultima verificare reușită la' : 'Actualizat la'} {formatTime(report.checkedAt)}
            </>
          ) : null}
          {!checking ? (
            <button type="button" className="btn btn--link" onClick={() => void refresh()}>
              Verifică acum
            </button>
          ) : null}
        </span>
      }
    >

      <ul className="health__list">
        {HEALTH_CHECKS.map(({ key, label }) => (
          <Indicator
            key={key}
            testId={`health-${key}`}
            label={label}
            probe={report?.checks[key]}
            failed={failed}
            pending={!report && !failed}
          />
        ))}
      </ul>

      {failed ? (
        <p className="health__banner health__banner--error" role="alert" data-testid="health-error">
          Starea serviciilor nu poate fi verificată: {state.reason.replace(/[.\s]+$/, '')}.
        </p>
      ) : report ? (
        <p className={allOk ? 'health__banner health__banner--ok' : 'health__banner health__banner--warn'}>
          {allOk
            ? 'Toate serviciile funcționează normal.'
            : 'Unele servicii nu răspund; funcțiile care depind de ele pot fi indisponibile.'}
        </p>
      ) : null}
    </Card>
  );
}

function Indicator(props: { testId: string; label: string; probe?: HealthProbe; failed: boolean; pending: boolean }) {
  const { testId, label, probe, failed, pending } = props;
  const tipId = useId();
  const state = pending ? 'checking' : failed || !probe?.ok ? 'fail' : 'ok';
  const status = pending ? 'se verifică…' : failed ? 'necunoscut' : probe?.ok ? 'funcțional' : 'indisponibil';
  const tip = pending
    ? 'Verificarea este în curs.'
    : failed
      ? 'Ultima verificare nu a reușit; starea reală nu este cunoscută.'
      : probe
        ? `${probe.detail ?? (probe.ok ? 'Răspunde' : 'Nu răspunde')} · ${probe.ms} ms`
        : '';
  return (
    <li
      className={`indicator indicator--${state}`}
      data-testid={testId}
      data-state={state}
      tabIndex={0}
      aria-describedby={tipId}
    >
      <span className="indicator__dot" aria-hidden="true" />
      <span className="indicator__text">
        <span className="indicator__label">{label}</span>
        <span className="indicator__status">{status}</span>
        {probe?.since && !failed && !pending ? (
          <span className="indicator__since" data-testid={`${testId}-since`}>
            din {formatWhen(probe.since)}
          </span>
        ) : null}
      </span>
      {probe && !failed && !pending ? <span className="indicator__ms">{probe.ms} ms</span> : null}
      <span role="tooltip" id={tipId} className="indicator__tip">
        {tip}
      </span>
    </li>
  );
}
