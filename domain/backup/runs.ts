/**
 * Backups of the store and the object store (docs/operations.md "Backups"): what the nightly job,
 * `POST /api/admin/backups`, the health check and `npm run restore` call. Each run is recorded in
 * the backup bucket (`runs/<stanza>/<id>.json`), not in the database it backs up, so a restore
 * neither loses nor rewinds the record of backups taken after the point restored to.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../config';
import type { Db } from '../db/pool';
import type { NotificationsService } from '../notifications/service';
import { adminUsers } from '../notifications/service';
import { countOf } from '../text/plural';
import { bucketNames, s3 } from '../storage/service';
import { deleteKeys, ensureBackupBucket, listAll, mirrorBuckets, pruneObjects, restoreBuckets, type ObjectRestoreResult } from './objects';
import type { BackupRun, BackupType } from './jobTypes';
import { ensureStanza, expireBackup, recover, repoBackups, restoreFiles, takeBackup, type BackupTarget } from './pgbackrest';
import { backupsToExpire, backupsToKeep, nextBackupType, runRecordsToDrop, type RetentionPolicy } from './retention';
import { childLogger } from '../log';

type Repo = Pick<BackupTarget, 'stanza' | 'repoPath'>;

const log = childLogger('backup');

const runsPrefix = (t: Repo) => `runs/${t.stanza}/`;
const objectsPrefix = (t: BackupTarget) => `objects/${t.stanza}`;

/** The local stack's repository (what the web process reads: it needs no data directory). */
export const stackRepo = (): Repo => ({ stanza: config.backup.stanza, repoPath: config.backup.repoPath });

async function saveRun(t: Repo, run: BackupRun): Promise<void> {
  await s3().send(new PutObjectCommand({
    Bucket: config.backup.bucket, Key: `${runsPrefix(t)}${run.id}.json`, Body: JSON.stringify(run), ContentType: 'application/json',
  }));
}

/** The backup bucket and the stanza: safe at every start of the stack. */
export async function ensureBackupRepository(t: BackupTarget): Promise<void> {
  await ensureBackupBucket();
  await ensureStanza(t);
}

async function readRun(Key: string): Promise<BackupRun> {
  const r = await s3().send(new GetObjectCommand({ Bucket: config.backup.bucket, Key }));
  return JSON.parse(await r.Body!.transformToString()) as BackupRun;
}

/** Every recorded run, newest first. */
export async function backupRuns(t: Repo): Promise<BackupRun[]> {
  const keys = (await listAll(config.backup.bucket, runsPrefix(t))).map((o) => o.Key!);
  const runs = await Promise.all(keys.map(readRun));
  return runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/**
 * The recorded runs newest first, read only as far as the newest good one (a run's record is
 * last written when it ends, so the listing's newest-modified come first): the health check's
 * read, a listing and a GET or two, whatever the history holds.
 */
async function runsUpToLastGood(t: Repo): Promise<BackupRun[]> {
  const keys = (await listAll(config.backup.bucket, runsPrefix(t)))
    .sort((a, b) => (b.LastModified?.getTime() ?? 0) - (a.LastModified?.getTime() ?? 0))
    .map((o) => o.Key!);
  const read: BackupRun[] = [];
  for (let i = 0; i < keys.length; i += RUNS_READ_AT_ONCE) {
    read.push(...(await Promise.all(keys.slice(i, i + RUNS_READ_AT_ONCE).map(readRun))));
    if (read.some((r) => r.status === 'done' && r.endedAt)) break;
  }
  return read.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

const RUNS_READ_AT_ONCE = 4;

/** The time of the newest WAL segment in the archive: a restore reaches up to it. */
export async function walArchivedUpTo(t: Repo): Promise<string | null> {
  const wal = await listAll(config.backup.bucket, `${t.repoPath.replace(/^\//, '')}/archive/${t.stanza}/`);
  const newest = wal.filter((o) => /\/[0-9A-F]{24}-/.test(o.Key ?? '')).reduce<Date | null>(
    (max, o) => (o.LastModified && (!max || o.LastModified > max) ? o.LastModified : max), null);
  return newest?.toISOString() ?? null;
}

export interface BackupList {
  /** Newest first, as CONTRACT 6 lists them (the pgBackRest label stays inside). */
  items: Array<Omit<BackupRun, 'label'>>;
  /** Time of the newest archived WAL segment: a restore reaches up to it (null: nothing archived). */
  walArchivedUpTo: string | null;
}

/** The backups an administrator sees (GET /api/admin/backups, the infrastructure page). */
export async function backupList(t: Repo = stackRepo()): Promise<BackupList> {
  const [runs, upTo] = await Promise.all([backupRuns(t), walArchivedUpTo(t)]);
  return {
    items: runs.map((r) => ({
      id: r.id, type: r.type, startedAt: r.startedAt, endedAt: r.endedAt, sizeBytes: r.sizeBytes, status: r.status,
      ...(r.error !== undefined ? { error: r.error } : {}),
    })),
    walArchivedUpTo: upTo,
  };
}

export interface LastBackup {
  /** End of the newest successful backup; null when none was ever taken. */
  lastAt: string | null;
  sizeBytes: number | null;
  /**
   * A successful backup newer than config.backup.maxAgeHours, or a new store whose first backup
   * is not due yet (`pending`).
   */
  ok: boolean;
  ageSeconds: number | null;
  /** No good backup yet, none failed, and the store is younger than maxAgeHours: nothing was due. */
  pending: boolean;
}

/**
 * Whether the backups are where they should be, from the recorded runs (newest first). A store
 * never backed up is late only once it is older than the limit: a new stack has its first backup
 * at the next 02:30 (or when an administrator starts one), so it is not red until then; a failed
 * first backup is red at once. `storeCreatedAt` unknown: no grace.
 */
export function judgeBackups(runs: readonly BackupRun[], now: Date, storeCreatedAt: Date | null, maxAgeHours = config.backup.maxAgeHours): LastBackup {
  const last = runs.find((r) => r.status === 'done' && r.endedAt);
  if (last?.endedAt) {
    const ageSeconds = Math.max(0, Math.round((now.getTime() - Date.parse(last.endedAt)) / 1000));
    return { lastAt: last.endedAt, sizeBytes: last.sizeBytes, ok: ageSeconds <= maxAgeHours * 3600, ageSeconds, pending: false };
  }
  const pending = !!storeCreatedAt && !runs.some((r) => r.status === 'failed')
    && now.getTime() - storeCreatedAt.getTime() <= maxAgeHours * 3600_000;
  return { lastAt: null, sizeBytes: null, ok: pending, ageSeconds: null, pending };
}

/**
 * When the database cluster was created (initdb): PostgreSQL's system identifier starts with
 * that time in seconds, and a restored cluster keeps it. Null when the server does not say.
 */
export async function storeCreatedAt(db: Db): Promise<Date | null> {
  try {
    const r = await db.query<{ s: string }>('SELECT (system_identifier >> 32)::text AS s FROM pg_control_system()');
    return r.rows[0] ? new Date(Number(r.rows[0].s) * 1000) : null;
  } catch {
    return null;
  }
}

/**
 * The newest good backup, for the health check, the late-backup alert and the metrics' gauges;
 * with `db`, a new store's first backup not yet due counts as `pending` (judgeBackups).
 */
export async function lastBackup(t: Repo = stackRepo(), now = new Date(), db?: Db): Promise<LastBackup> {
  const [runs, createdAt] = await Promise.all([runsUpToLastGood(t), db ? storeCreatedAt(db) : Promise.resolve(null)]);
  return judgeBackups(runs, now, createdAt);
}

/**
 * Deletes the run records retention no longer keeps. Best effort, after the run is recorded done:
 * a record left over is deleted by the next backup, while a failure here must not record a good
 * backup as failed (and tell every administrator so).
 */
async function pruneRunRecords(t: Repo, sets: Parameters<typeof runRecordsToDrop>[1], policy: RetentionPolicy): Promise<void> {
  try {
    const dropped = runRecordsToDrop(await backupRuns(t), sets, policy);
    await deleteKeys(config.backup.bucket, dropped.map((id) => `${runsPrefix(t)}${id}.json`));
  } catch (err) {
    log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'pruning backup run records failed; the next backup retries');
  }
}

export interface BackupOutcome {
  run: BackupRun;
  expired: string[];
}

/**
 * One backup: the database (full once a week, else differential, unless `type` is given), the
 * buckets' new object versions with this backup's manifest, then the retention. The run is
 * recorded as running first, so the list shows it, and as done or failed at the end.
 */
export async function runBackup(t: BackupTarget, o: { id: string; type?: BackupType; buckets?: readonly string[] }): Promise<BackupOutcome> {
  const before = await repoBackups(t);
  const type = o.type ?? nextBackupType(before, new Date());
  const run: BackupRun = { id: o.id, type, startedAt: new Date().toISOString(), endedAt: null, sizeBytes: null, status: 'running' };
  await saveRun(t, run);
  try {
    const made = await takeBackup(t, type);
    const mirror = await mirrorBuckets(objectsPrefix(t), made.label, o.buckets ?? bucketNames());
    const sets = await repoBackups(t);
    const policy = config.backup.retention;
    const expired = backupsToExpire(sets, policy);
    for (const label of expired) await expireBackup(t, label);
    await pruneObjects(objectsPrefix(t), backupsToKeep(sets, policy));
    Object.assign(run, { endedAt: new Date().toISOString(), sizeBytes: made.sizeBytes + mirror.copiedBytes, status: 'done', label: made.label });
    await saveRun(t, run);
    await pruneRunRecords(t, sets, policy);
    return { run, expired };
  } catch (err) {
    Object.assign(run, { endedAt: new Date().toISOString(), status: 'failed', error: err instanceof Error ? err.message : String(err) });
    await saveRun(t, run).catch(() => undefined);
    throw err;
  }
}

/**
 * The attempts of one backup job (`idPrefix`: its workflow and run) whose process died mid-run
 * (SIGKILL, out of memory: no catch ran), still recorded as running: closed as failed. Otherwise
 * the newest record said "în curs" until the next night's backup, and the page kept "Pornește o
 * copie acum" disabled. Answers how many it closed.
 */
export async function closeInterruptedRuns(t: Repo, idPrefix: string): Promise<number> {
  const keys = (await listAll(config.backup.bucket, `${runsPrefix(t)}${idPrefix}`)).map((o) => o.Key!);
  let closed = 0;
  for (const run of await Promise.all(keys.map(readRun))) {
    if (run.status !== 'running') continue;
    await saveRun(t, { ...run, status: 'failed', endedAt: new Date().toISOString(), error: 'Întreruptă: procesul care o făcea s-a oprit.' });
    closed++;
  }
  return closed;
}

export interface RestoreOutcome {
  to: string | null;
  /** Where the replay stopped: at `to`, or at the archive's end (no commit after `to` in it, or no `to`). */
  reached: 'target' | 'end-of-archive';
  objects: ObjectRestoreResult;
}

/**
 * Restores `t`'s stopped cluster and the buckets to `to` (default: the newest state the archive
 * holds): the files from the newest backup before it, the WAL replayed up to it (the server
 * started, promoted and stopped again), and the buckets as they were then.
 */
export async function restore(t: BackupTarget, o: { to?: Date; binDir: string; buckets?: readonly string[] }): Promise<RestoreOutcome> {
  let reached: RestoreOutcome['reached'] = o.to ? 'target' : 'end-of-archive';
  await restoreFiles(t, o.to);
  try {
    await recover(t, { binDir: o.binDir });
  } catch (err) {
    // PostgreSQL stops at a time target only on the first commit after it; with none archived
    // (a quiet server since then, or a timeline restored to that time before) the state at `to`
    // is the end of the archive, so the replay runs to there instead.
    if (!o.to || !/recovery ended before configured recovery target was reached/.test(String(err))) throw err;
    await restoreFiles(t);
    await recover(t, { binDir: o.binDir });
    reached = 'end-of-archive';
  }
  const objects = await restoreBuckets(objectsPrefix(t), o.buckets ?? bucketNames(), o.to);
  return { to: o.to?.toISOString() ?? null, reached, objects };
}

/**
 * Tells every administrator (in-app and, being critical, by e-mail at once) that a backup failed
 * or that the newest good one is late. `key` makes a repeat (a retried activity, the next hourly
 * check of the same late backup) a no-op.
 */
export async function notifyBackupProblem(
  db: Db,
  notifications: Pick<NotificationsService, 'notify'>,
  p: { problem: 'failed' | 'late'; detail: string; key: string },
): Promise<number> {
  const admins = await adminUsers(db);
  const title = p.problem === 'failed' ? 'Copia de siguranță a eșuat' : 'Copia de siguranță este întârziată';
  let created = 0;
  for (const admin of admins) {
    const r = await notifications.notify({
      userId: admin.id, type: 'backup-failed', title, body: p.detail, link: '/infrastructura-harti',
      idempotencyKey: `backup-${p.problem}:${p.key}:${admin.id}`, critical: true,
    });
    if (r.created) created += 1;
  }
  return created;
}

/** The hourly check: a late backup (or none once one was due) is told to the administrators once. */
export async function checkBackupAge(
  db: Db,
  notifications: Pick<NotificationsService, 'notify'>,
  t: Repo,
  now = new Date(),
): Promise<LastBackup & { notified: number }> {
  const last = await lastBackup(t, now, db);
  if (last.ok) return { ...last, notified: 0 };
  const detail = last.lastAt
    ? `Ultima copie de siguranță reușită este din ${last.lastAt.slice(0, 16).replace('T', ' ')} UTC, de acum ${countOf(Math.floor((last.ageSeconds ?? 0) / 3600), 'oră', 'ore')} (limita: ${countOf(config.backup.maxAgeHours, 'oră', 'ore')}).`
    : 'Nu există încă nicio copie de siguranță reușită a bazei de date.';
  const notified = await notifyBackupProblem(db, notifications, { problem: 'late', detail, key: last.lastAt ?? 'none' });
  return { ...last, notified };
}
