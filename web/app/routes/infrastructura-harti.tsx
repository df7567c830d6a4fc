/**
 * "Infrastructură hărți": the infrastructure the service stands on, with since when each part is in
 * its state (the health line of GET /api/health), the backups for administrators (the runs, how far
 * the WAL archive reaches, a backup started now), and the tile infrastructure monitor (spec 1.7,
 * 3.6): archive age and size, the builder's recent builds, the rebuild job with its progress, and
 * the tile server mode. While a rebuild or a backup runs, the page re-reads its loader every 2 s.
 */
import { useEffect } from 'react';
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useActionData, useLoaderData, useNavigation, useRevalidator } from '@remix-run/react';
import { requireSession } from '../lib/auth.server';
import { startTileRebuild, tileInfraStatus } from '../lib/tiles.server';
import { startBackup, type BackupList } from '../lib/backups.server';
import { loadHealth } from '../lib/health.server';
import { discardBody, readSmallForm } from '../lib/forms.server';
import type { HealthReport } from '../lib/health';
import { AppError } from '../../../domain/errors';
import { BUILD_PHASE_LABEL, BUILD_STATUS_LABEL, formatAge, formatBytes, formatDate } from '../lib/tilesFormat';
import { BACKUP_STATUS_LABELS, BACKUP_TYPE_LABELS } from '../lib/words';
import { formatWhen } from '../lib/dates';
import { Card } from '../components/Card';
import { HealthLine } from '../components/HealthLine';

export const meta: MetaFunction = () => [{ title: 'Infrastructură hărți · Geoportal cadastral' }];

const REFRESH_WHILE_RUNNING_MS = 2000;
const BACKUP_LISTING_WAIT_MS = 120_000;
/** The web process and the worker that records the run may read slightly different clocks. */
const CLOCK_SKEW_MS = 5000;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { isAdmin } = requireSession(request, context);
  // A part that does not answer shows in the health line; the page itself still opens.
  const [health, backups] = await Promise.all([
    loadHealth(context.store, isAdmin).catch((): HealthReport | null => null),
    isAdmin ? context.services.backup.list().catch((): BackupList | null => null) : Promise.resolve(null),
  ]);
  try {
    return { status: await tileInfraStatus(context.services.tiles, { technical: isAdmin }), error: null as string | null, isAdmin, health, backups };
  } catch (err) {
    return { status: null, error: err instanceof AppError ? err.message : 'Starea infrastructurii de hărți nu a putut fi citită.', isAdmin, health, backups };
  }
}

const ADMIN_ONLY_REBUILD = 'Doar administratorii pot porni reconstruirea arhivei de ansamblu.';
const ADMIN_ONLY = 'Doar administratorii pot porni reconstruirea arhivei de ansamblu sau o copie de siguranță.';

/** `startedAt`: when a backup job was started here, to follow it until its run is listed. */
type ActionResult = { intent: 'rebuild' | 'backup'; ok: boolean; message: string; jobId: string | null; startedAt?: string };

export async function action({ request, context }: ActionFunctionArgs): Promise<ActionResult> {
  // Both intents are administrators' only, as their API routes are (POST /api/admin/backups,
  // CONTRACT 6; POST /api/geoportal/tiles/rebuild, issue 25): anyone else is answered without
  // the body being parsed or kept (what arrives is thrown away). The page offers neither form to
  // them (no backup card, the rebuild button disabled), so the answer names both and shows in the
  // rebuild card, the one they see.
  if (!requireSession(request, context).isAdmin) {
    discardBody(request);
    return { intent: 'rebuild', ok: false, message: ADMIN_ONLY, jobId: null };
  }
  const intent = (await readSmallForm(request)).get('intent') === 'backup' ? 'backup' : 'rebuild';
  if (intent === 'backup') {
    try {
      const r = await startBackup();
      return { intent, ok: true, message: 'Copia de siguranță a pornit.', jobId: r.jobId, startedAt: new Date().toISOString() };
    } catch (err) {
      if (err instanceof AppError && err.code === 'already_running') {
        return { intent, ok: true, message: 'O copie de siguranță este deja în curs; urmăriți-o mai jos.', jobId: null };
      }
      return { intent, ok: false, message: err instanceof AppError ? err.message : 'Copia de siguranță nu a putut fi pornită.', jobId: null };
    }
  }
  try {
    const r = await startTileRebuild();
    return { intent, ok: true, message: 'Reconstruirea arhivei a pornit.', jobId: r.jobId };
  } catch (err) {
    if (err instanceof AppError && err.code === 'already_running') {
      // Spec 3.6: "already running" is a valid state, not a failure.
      return { intent, ok: true, message: 'O reconstruire rulează deja; urmăriți progresul mai jos.', jobId: null };
    }
    return { intent, ok: false, message: err instanceof AppError ? err.message : 'Reconstruirea nu a putut fi pornită.', jobId: null };
  }
}

export default function TileInfrastructure() {
  const { status, error, isAdmin, health, backups } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const result = actionData?.intent === 'rebuild' ? actionData : undefined;
  const backupResult = actionData?.intent === 'backup' ? actionData : undefined;
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const running = status?.job?.status === 'running';
  const backupRunning = backups?.items[0]?.status === 'running';

  // A backup just started is listed only once a worker has picked it up: follow it until then
  // (for at most BACKUP_LISTING_WAIT_MS, in case it never is), then while it runs.
  const startedAt = backupResult?.startedAt ? Date.parse(backupResult.startedAt) : null;
  const newest = backups?.items[0];
  const awaitingListing = startedAt !== null && !(newest && Date.parse(newest.startedAt) >= startedAt - CLOCK_SKEW_MS);

  useEffect(() => {
    if (!running && !backupRunning && !awaitingListing) return;
    const t = setInterval(() => {
      if (!running && !backupRunning && startedAt !== null && Date.now() - startedAt > BACKUP_LISTING_WAIT_MS) return clearInterval(t);
      if (revalidator.state === 'idle') revalidator.revalidate();
    }, REFRESH_WHILE_RUNNING_MS);
    return () => clearInterval(t);
  }, [running, backupRunning, awaitingListing, startedAt, revalidator]);

  const submitting = navigation.state === 'submitting' && navigation.formData?.get('intent') !== 'backup';
  const startingBackup = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'backup';
  const progress = status?.job?.progress as { percent?: number; message?: string; polls?: number } | undefined;

  return (
    <div className="tile-monitor">
      <header className="page-head">
        <p className="page-head__eyebrow">Utilitare</p>
        <h1 className="page-head__title">Infrastructură hărți</h1>
        <p className="page-head__sub">
          Starea serviciilor de care depinde aplicația, copiile de siguranță, arhiva PMTiles de ansamblu și serverul de tile-uri vectoriale.
        </p>
      </header>

      <HealthLine initial={health} />

      {isAdmin ? (
        <Card title="Copii de siguranță" testId="backups">
          <Form method="post">
            <input type="hidden" name="intent" value="backup" />
            <button type="submit" className="btn btn--primary" disabled={startingBackup || backupRunning} data-testid="backup-start">
              {backupRunning ? 'Copie în curs…' : startingBackup ? 'Se pornește…' : 'Pornește o copie acum'}
            </button>
          </Form>
          {backupResult ? (
            <p className={backupResult.ok ? 'prose' : 'health__banner health__banner--error'} role="status" data-testid="backup-message">
              {backupResult.message}
            </p>
          ) : null}
          {!backups ? (
            <p className="health__banner health__banner--error" role="alert">
              Lista copiilor de siguranță nu a putut fi citită.
            </p>
          ) : (
            <>
              <p className="prose" data-testid="backup-wal">
                {backups.walArchivedUpTo
                  ? `Jurnalul de tranzacții este arhivat până la ${formatWhen(backups.walArchivedUpTo, 'dateTimeSeconds')}: o restaurare poate ajunge până acolo.`
                  : 'Jurnalul de tranzacții nu a fost arhivat încă.'}
              </p>
              {backups.items.length === 0 ? (
                <p className="prose prose--muted" data-testid="backups-none">
                  Nicio copie de siguranță încă; prima se face la 02:30 sau când o porniți de aici.
                </p>
              ) : (
                <div className="table-wrap" tabIndex={0} role="region" aria-label="Copii de siguranță">
                  <table className="table" data-testid="backup-runs">
                    <thead>
                      <tr>
                        <th>Pornită</th>
                        <th>Încheiată</th>
                        <th>Tip</th>
                        <th>Stare</th>
                        <th>Dimensiune</th>
                      </tr>
                    </thead>
                    <tbody>
                      {backups.items.slice(0, 10).map((b) => (
                        <tr key={b.id} data-run-id={b.id}>
                          <td>{formatWhen(b.startedAt)}</td>
                          <td>{formatWhen(b.endedAt)}</td>
                          <td>{BACKUP_TYPE_LABELS[b.type] ?? b.type}</td>
                          <td data-testid="backup-status">
                            {BACKUP_STATUS_LABELS[b.status] ?? b.status}
                            {b.status === 'failed' && b.error ? <span className="muted">: {b.error}</span> : null}
                          </td>
                          <td>{b.sizeBytes === null ? '—' : formatBytes(b.sizeBytes)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </>
          )}
        </Card>
      ) : null}

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
              <input type="hidden" name="intent" value="rebuild" />
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
