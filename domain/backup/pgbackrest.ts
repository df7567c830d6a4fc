/**
 * The database half of backups: pgBackRest (docs/operations.md "Backups"). PostgreSQL archives
 * every WAL segment into the S3 repository through `archive-push` (at most `archive_timeout`, 60 s,
 * after a write), the nightly job takes full or differential backups, and a restore replays the
 * archive up to a chosen time. Every option reaches pgBackRest through its `PGBACKREST_*`
 * environment, so no file holds the S3 secret or the repository key, and the archive command
 * PostgreSQL runs inherits them from the server's own environment.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { config, projectRoot } from '../config';
import type { BackupType } from './jobTypes';

const run = promisify(execFile);

/** One PostgreSQL cluster and where its backups go: the stack's (`stackTarget`), or a drill's own. */
export interface BackupTarget {
  stanza: string;
  /** Repository path inside config.backup.bucket. */
  repoPath: string;
  pgDataDir: string;
  pgPort: number;
  /** pgBackRest reaches the server through its Unix socket. */
  pgSocketDir: string;
  pgUser: string;
  pgPassword: string;
  /** Set: the data directory is on another host, read through its pgBackRest TLS server (backups only; a restore runs on the host). */
  pgHost?: RemotePgHost;
}

export interface RemotePgHost {
  host: string;
  port: number;
  caFile: string;
  certFile: string;
  keyFile: string;
}

const isRoot = process.getuid?.() === 0;

/** initdb, postgres and pgBackRest's restore refuse root or leave root's files: run them as `postgres`. */
export function asPostgres(cmd: string, args: string[]): [string, string[]] {
  return isRoot ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', cmd, ...args]] : [cmd, args];
}

/**
 * The local stack's PostgreSQL data directory: `<dataDir>/pg`, unless the postgres user cannot
 * reach it (a clone under /root, say); then a directory of its own under /var/lib/postgresql.
 * `PGDATA` names it for a server the stack does not start (a container's volume).
 */
export function pgDataDir(): string {
  if (config.backup.pgData) return config.backup.pgData;
  const preferred = path.join(config.dataDir, 'pg');
  if (!isRoot) return preferred;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const probe = spawnSync('setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', 'test', '-x', config.dataDir]);
  if (probe.status === 0) return preferred;
  const key = createHash('sha256').update(projectRoot).digest('hex').slice(0, 8);
  return path.join('/var/lib/postgresql/cadastral-geoportal', `${config.profile}-${key}`);
}

/** The local stack's cluster (scripts/stack/services.ts starts it with `archiveSettings`). */
export function stackTarget(pgDataDir: string): BackupTarget {
  return {
    stanza: config.backup.stanza,
    repoPath: config.backup.repoPath,
    pgDataDir,
    pgPort: config.db.port,
    pgSocketDir: '/tmp',
    pgUser: config.db.user,
    pgPassword: config.db.password,
    ...(config.backup.pgHost ? {
      pgHost: {
        host: config.backup.pgHost, port: config.backup.pgHostPort,
        caFile: config.backup.tlsCaFile, certFile: config.backup.tlsCertFile, keyFile: config.backup.tlsKeyFile,
      },
    } : {}),
  };
}

/** pgBackRest's options for `t`, as its environment (secrets included: never log it). */
export function pgbackrestEnv(t: BackupTarget): Record<string, string> {
  const endpoint = new URL(config.backup.s3Endpoint);
  const env: Record<string, string> = {
    PGBACKREST_STANZA: t.stanza,
    PGBACKREST_REPO1_TYPE: 's3',
    PGBACKREST_REPO1_PATH: t.repoPath,
    PGBACKREST_REPO1_S3_BUCKET: config.backup.bucket,
    PGBACKREST_REPO1_S3_ENDPOINT: endpoint.hostname,
    PGBACKREST_REPO1_STORAGE_PORT: endpoint.port || '443',
    PGBACKREST_REPO1_S3_REGION: config.s3.region,
    PGBACKREST_REPO1_S3_KEY: config.s3.accessKeyId,
    PGBACKREST_REPO1_S3_KEY_SECRET: config.s3.secretAccessKey,
    PGBACKREST_REPO1_S3_URI_STYLE: 'path',
    PGBACKREST_REPO1_STORAGE_VERIFY_TLS: config.backup.verifyTls ? 'y' : 'n',
    // Our retention (domain/backup/retention.ts) picks what to expire; pgBackRest's own count never does.
    PGBACKREST_REPO1_RETENTION_FULL: '9999999',
    PGBACKREST_PG1_PATH: t.pgDataDir,
    PGBACKREST_PG1_PORT: String(t.pgPort),
    PGBACKREST_PG1_SOCKET_PATH: t.pgSocketDir,
    PGBACKREST_PG1_USER: t.pgUser,
    PGBACKREST_PG1_DATABASE: 'postgres',
    // Several stacks share a machine: each cluster its own lock directory.
    PGBACKREST_LOCK_PATH: path.join('/tmp', `pgbackrest-${t.stanza}-${t.pgPort}`),
    PGBACKREST_LOG_LEVEL_CONSOLE: 'warn',
    PGBACKREST_LOG_LEVEL_STDERR: 'error',
    PGBACKREST_LOG_LEVEL_FILE: 'off',
    PGBACKREST_COMPRESS_TYPE: 'zst',
    // Small files bundled: far fewer S3 requests for a store of many small relations.
    PGBACKREST_REPO1_BUNDLE: 'y',
    PGBACKREST_START_FAST: 'y',
    PGPASSWORD: t.pgPassword,
  };
  if (config.backup.s3CaFile) env.PGBACKREST_REPO1_STORAGE_CA_FILE = config.backup.s3CaFile;
  if (t.pgHost) {
    Object.assign(env, {
      PGBACKREST_PG1_HOST: t.pgHost.host,
      PGBACKREST_PG1_HOST_TYPE: 'tls',
      PGBACKREST_PG1_HOST_PORT: String(t.pgHost.port),
      PGBACKREST_PG1_HOST_CA_FILE: t.pgHost.caFile,
      PGBACKREST_PG1_HOST_CERT_FILE: t.pgHost.certFile,
      PGBACKREST_PG1_HOST_KEY_FILE: t.pgHost.keyFile,
    });
  }
  if (config.backup.encryptionKey) {
    env.PGBACKREST_REPO1_CIPHER_TYPE = 'aes-256-cbc';
    env.PGBACKREST_REPO1_CIPHER_PASS = config.backup.encryptionKey;
  }
  return env;
}

/** The server settings that archive every WAL segment into the repository, at most a minute late. */
export function archiveSettings(t: BackupTarget): string[] {
  return [
    'archive_mode=on',
    `archive_command=${config.backup.pgbackrest} archive-push %p`,
    'archive_timeout=60',
    `unix_socket_directories=${t.pgSocketDir}`,
  ];
}

export class BackupToolError extends Error {
  constructor(command: string, detail: string) {
    super(`pgbackrest ${command}: ${detail}`);
    this.name = 'BackupToolError';
  }
}

/** Runs one pgBackRest command as the postgres user; stdout on success. */
export async function pgbackrest(t: BackupTarget, command: string, args: string[] = [], timeoutMs = 6 * 3600_000): Promise<string> {
  const [cmd, argv] = asPostgres(config.backup.pgbackrest, [...args, command]);
  try {
    const { stdout } = await run(cmd, argv, {
      env: { ...process.env, ...pgbackrestEnv(t) },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    // pgBackRest's messages name paths and options, never the secrets, which live in its environment.
    const detail = (e.stderr || e.stdout || e.message).trim().split('\n').slice(-3).join(' ');
    throw new BackupToolError(command, detail);
  }
}

/** Creates the stanza when missing (and checks it otherwise); the first archive push needs it. */
export async function ensureStanza(t: BackupTarget): Promise<void> {
  await pgbackrest(t, 'stanza-create', [], 120_000);
}


export interface RepoBackup {
  label: string;
  type: BackupType;
  startedAt: string;
  endedAt: string;
  /** Bytes the backup added to the repository (compressed, deduplicated against its prior). */
  sizeBytes: number;
  /** The backup set it depends on (a diff's full), if any. */
  prior: string | null;
}

interface InfoJson {
  backup?: Array<{
    label: string;
    type: BackupType;
    prior: string | null;
    timestamp: { start: number; stop: number };
    info: { repository: { delta: number; size: number } };
  }>;
  archive?: Array<{ max: string | null }>;
}

/** The repository's backups, oldest first. */
export async function repoBackups(t: BackupTarget): Promise<RepoBackup[]> {
  const out = await pgbackrest(t, 'info', ['--output=json'], 120_000);
  const stanzas = JSON.parse(out) as InfoJson[];
  return (stanzas[0]?.backup ?? []).map((b) => ({
    label: b.label,
    type: b.type,
    startedAt: new Date(b.timestamp.start * 1000).toISOString(),
    endedAt: new Date(b.timestamp.stop * 1000).toISOString(),
    sizeBytes: b.info.repository.delta,
    prior: b.prior,
  }));
}

/** Takes a backup of `type`; answers the new backup's label. */
export async function takeBackup(t: BackupTarget, type: BackupType): Promise<RepoBackup> {
  const before = new Set((await repoBackups(t)).map((b) => b.label));
  await pgbackrest(t, 'backup', [`--type=${type}`]);
  const made = (await repoBackups(t)).find((b) => !before.has(b.label));
  if (!made) throw new BackupToolError('backup', 'the new backup is not in the repository');
  return made;
}

/** Removes one backup set (and the sets depending on it) and the WAL only it needed. */
export async function expireBackup(t: BackupTarget, label: string): Promise<void> {
  await pgbackrest(t, 'expire', [`--set=${label}`], 600_000);
}

/** Switches WAL so the last writes reach the archive now rather than within archive_timeout. */
export async function switchWal(t: BackupTarget): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port: t.pgPort, user: t.pgUser, password: t.pgPassword, database: 'postgres' });
  await client.connect();
  try {
    await client.query('SELECT pg_switch_wal()');
  } finally {
    await client.end();
  }
}

/**
 * Restores `t`'s data directory (the server stopped) to the newest state the archive holds, or
 * to `to`: files from the newest backup before it, and `restore_command` with the recovery target
 * for the WAL replay, which `recover` then runs. A directory with files is restored in place
 * (`--delta`); a wiped one is filled.
 */
export async function restoreFiles(t: BackupTarget, to?: Date): Promise<void> {
  const args: string[] = [];
  if (to) args.push('--type=time', `--target=${to.toISOString().replace('T', ' ').replace('Z', '+00')}`, '--target-action=promote');
  if (fs.existsSync(path.join(t.pgDataDir, 'PG_VERSION'))) args.push('--delta');
  else fs.mkdirSync(t.pgDataDir, { recursive: true, mode: 0o700 });
  if (isRoot) await run('chown', ['postgres:postgres', t.pgDataDir]);
  await pgbackrest(t, 'restore', args);
}

/**
 * Runs the WAL replay `restoreFiles` prepared: starts the server on the restored directory with
 * the archive settings, waits until recovery has ended and the server is promoted, and stops it
 * (fast shutdown), leaving a cluster the stack starts as usual.
 */
export async function recover(t: BackupTarget, o: { binDir: string; timeoutMs?: number }): Promise<void> {
  // No hot standby: a standby's connection and lock limits must match the primary's, which a
  // replay that nobody queries does not need; the server accepts connections once promoted.
  const settings = [`port=${t.pgPort}`, 'listen_addresses=127.0.0.1', 'hot_standby=off', ...archiveSettings(t)].flatMap((x) => ['-c', x]);
  const [cmd, args] = asPostgres(path.join(o.binDir, 'postgres'), ['-D', t.pgDataDir, ...settings]);
  const server = spawn(cmd, args, { env: { ...process.env, ...pgbackrestEnv(t) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-16_000);
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const deadline = Date.now() + (o.timeoutMs ?? 30 * 60_000);
  try {
    for (;;) {
      if (!running) {
        const cause = log.split('\n').filter((l) => /FATAL|PANIC|ERROR/.test(l)).slice(-3).join(' ') || log.trim().split('\n').slice(-3).join(' ');
        throw new BackupToolError('recovery', `the server stopped during recovery: ${cause}`);
      }
      if (Date.now() > deadline) throw new BackupToolError('recovery', 'recovery did not end in time');
      const client = new pg.Client({ host: '127.0.0.1', port: t.pgPort, user: t.pgUser, password: t.pgPassword, database: 'postgres', connectionTimeoutMillis: 1000 });
      const inRecovery = await client.connect()
        .then(() => client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r'))
        .then((r) => r.rows[0].r, () => true)
        .finally(() => client.end().catch(() => undefined));
      if (!inRecovery) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    if (running) server.kill('SIGINT');
    await exited;
  }
}
