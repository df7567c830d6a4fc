/**
 * "Infrastructură hărți": the tile infrastructure monitor (spec 1.7, 3.6). Archive age and size,
 * the builder's recent builds, the rebuild job with its progress, and the tile server mode. While
 * a rebuild runs, the page re-reads its loader every 2 s.
 */
import { useEffect } from 'react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react';
import { requireSession } from '../lib/auth.server';
import { startTileRebuild, tileInfraStatus } from '../lib/tiles.server';
import { AppError } from '../../../domain/errors';
import { BUILD_PHASE_LABEL, BUILD_STATUS_LABEL, formatAge, formatBytes, formatDate } from '../lib/tilesFormat';
import { Card } from '../components/Card';

export const meta: MetaFunction = () => [{ title: 'Infrastructură hărți · Geoportal cadastral' }];

const REFRESH_WHILE_RUNNING_MS = 2000;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { isAdmin } = requireSession(request, context);
  try {
    return { status: await tileInfraStatus(context.store, { technical: isAdmin }), error: null as string | null, isAdmin };
  } catch (err) {
    return { status: null, error: err instanceof AppError ? err.message : 'Starea infrastructurii de hărți nu a putut fi citită.', isAdmin };
  }
}

const ADMIN_ONLY_REBUILD = 'Doar administratorii pot porni reconstruirea arhivei de ansamblu.';

export async function action({ request, context }: ActionFunctionArgs) {
  // The same rule as POST /api/geoportal/tiles/rebuild (issue 25): a rebuild is office-wide work.
  if (!requireSession(request, context).isAdmin) return { ok: false, message: ADMIN_ONLY_REBUILD, jobId: null };
  try {
    const r = await startTileRebuild();
    return { ok: true, message: 'Reconstruirea arhivei a pornit.', jobId: r.jobId };
  } catch (err) {
    if (err instanceof AppError && err.code === 'already_running') {
      // Spec 3.6: "already running" is a valid state, not a failure.
      return { ok: true, message: 'O reconstruire rulează deja; urmăriți progresul mai jos.', jobId: null };
    }
    return { ok: false, message: err instanceof AppError ? err.message : 'Reconstruirea nu a putut fi pornită.', jobId: null };
  }
}

export default function TileInfrastructure() {
  const { status, error, isAdmin } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const running = status?.job?.status === 'running';

  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => {
      if (revalidator.state === 'idle') revalidator.revalidate();
    }, REFRESH_WHILE_RUNNING_MS);
    return () => clearInterval(t);
  }, [running, revalidator]);

  const submitting = navigation.state === 'submitting';
  const progress = status?.job?.progress as { percent?: number; message?: string; polls?: number } | undefined;

  return (
    <div className="tile-monitor">
      <header className="page-head">
        <p className="page-head__eyebrow">Utilitare</p>
        <h1 className="page-head__title">Infrastructură hărți</h1>
        <p className="page-head__sub">Arhiva PMTiles de ansamblu, reconstruirea ei și serverul de tile-uri vectoriale.</p>
      </header>

      {error ? (
        <p className="health__banner health__banner--error" role="alert">
          {error}
        </p>
      ) : null}

      {status ? (
        <div className="grid grid--2">
          <Card title="Arhiva de ansamblu">
            {status.archive ? (
              <dl className="facts" data-testid="archive-facts">
                <div>
                  <dt>Vechime</dt>
                  <dd data-testid="archive-age">{formatAge(status.archive.ageSeconds)}</dd>
                </div>
                <div>
                  <dt>Actualizată</dt>
                  <dd>{formatDate(status.archive.lastModified)}</dd>
                </div>
                <div>
                  <dt>Dimensiune</dt>
                  <dd data-testid="archive-size">{formatBytes(status.archive.sizeBytes)}</dd>
                </div>
                <div>
                  <dt>Adresă</dt>
                  <dd>
                    <code>{status.archive.url}</code>
                  </dd>
                </div>
              </dl>
            ) : (
              <p className="prose prose--muted" data-testid="archive-missing">
                Arhiva nu a fost construită încă. Porniți o reconstruire.
              </p>
            )}
          </Card>

          <Card title="Reconstruire">
            <Form method="post">
              <button type="submit" className="btn btn--primary" disabled={!isAdmin || submitting || running} data-testid="rebuild">
                {running ? 'Reconstruire în curs…' : submitting ? 'Se pornește…' : 'Reconstruiește arhiva'}
              </button>
            </Form>
            {!isAdmin ? (
              <p className="prose prose--muted" data-testid="rebuild-admin-only">
                {ADMIN_ONLY_REBUILD}
              </p>
            ) : null}
            {result ? (
              <p className={result.ok ? 'prose' : 'health__banner health__banner--error'} role="status" data-testid="rebuild-message">
                {result.message}
              </p>
            ) : null}
            {status.job ? (
              <div className="prose" data-testid="rebuild-job">
                <p>
                  Ultima cerere: {formatDate(status.job.startedAt)} · stare{' '}
                  <strong>{BUILD_STATUS_LABEL[status.job.status] ?? status.job.status}</strong>
                </p>
                {running ? (
                  <>
                    <progress max={100} value={progress?.percent ?? 0} aria-label="Progres reconstruire" />
                    <p>{progress?.message ?? 'Se așteaptă actualizarea arhivei…'}</p>
                  </>
                ) : null}
                {status.job.status === 'failed' && status.job.error ? (
                  <p className="health__banner health__banner--error">{status.job.error}</p>
                ) : null}
              </div>
            ) : (
              <p className="prose prose--muted">Nicio reconstruire cerută încă.</p>
            )}
          </Card>

          <Card title="Construiri recente">
            {status.builds.length === 0 ? (
              <p className="prose prose--muted">Nicio construire înregistrată.</p>
            ) : (
              <div className="table-wrap" tabIndex={0} role="region" aria-label="Construiri recente">
                <table className="table" data-testid="builds">
                  <thead>
                    <tr>
                      <th>Pornită</th>
                      <th>Stare</th>
                      <th>Etapă</th>
                      <th>UAT / parcele</th>
                      <th>Dimensiune</th>
                    </tr>
                  </thead>
                  <tbody>
                    {status.builds.map((b) => (
                      <tr key={b.id}>
                        <td>{formatDate(b.startedAt)}</td>
                        <td data-testid="build-status">
                          {BUILD_STATUS_LABEL[b.status] ?? b.status}
                          {b.status === 'failed' && b.error ? <span className="muted">: {b.error}</span> : null}
                        </td>
                        <td>{b.phase ? (BUILD_PHASE_LABEL[b.phase] ?? b.phase) : '—'}</td>
                        <td>
                          {b.uatCount ?? '—'} / {b.parcelCount ?? '—'}
                        </td>
                        <td>{formatBytes(b.sizeBytes)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Card>

          <Card title="Server de tile-uri" testId="tile-server">
            <dl className="facts">
              <div>
                <dt>Mod</dt>
                <dd>
                  {/* How tiles are made is an administrator's detail; others read what it means. */}
                  {status.tiles.mode === 'proxy'
                    ? isAdmin
                      ? `server dedicat (${status.tiles.serverUrl})`
                      : 'server dedicat de hărți'
                    : isAdmin
                      ? 'generate din baza de date (PostGIS ST_AsMVT)'
                      : 'generate din baza de date'}
                </dd>
              </div>
              <div>
                <dt>Cache în memorie</dt>
                <dd>
                  {status.tiles.cache.entries} tile-uri · {formatBytes(status.tiles.cache.bytes)} · {status.tiles.cache.hits} reutilizări
                </dd>
              </div>
              <div>
                <dt>Arhiva de ansamblu</dt>
                <dd>{status.tiles.builder === 'ours' ? 'construită de acest serviciu' : 'construită de un server extern de hărți'}</dd>
              </div>
              {status.tiles.webhookUrl ? (
                <div>
                  <dt>Webhook reconstruire</dt>
                  <dd>
                    <code>{status.tiles.webhookUrl}</code>
                  </dd>
                </div>
              ) : null}
            </dl>
          </Card>
        </div>
      ) : null}
    </div>
  );
}
