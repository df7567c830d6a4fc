/**
 * The services of the local stack (ARCHITECTURE.md "The runtime"), each with how to start it and
 * how to know it is ready. A service already answering on its port (started by hand, or by an
 * earlier run) is reused and left running on exit. Services pointed elsewhere by the environment
 * (e.g. TEMPORAL_ADDRESS, S3_ENDPOINT) are not started.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { aiUsesSimulator, config, projectRoot } from '../../domain/config';
import { archiveSettings, asPostgres, pgbackrestEnv, pgDataDir, stackTarget } from '../../domain/backup/service';

export { pgDataDir };
import { startProcess, httpOk, tcpOpen, type Proc } from './proc';
import { gatewayEnabled, startTilegate, tilegateReady, webBehindGateway } from './tilegate';

export interface Service {
  name: string;
  /** Started by this launcher (false: an external system the environment points at). */
  embedded: boolean;
  url?: string;
  ready(): Promise<boolean>;
  start(): Proc;
  readyTimeoutMs: number;
}

const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const tool = (name: string, version: string, bin: string) => path.join(config.toolsDir, `${name}-${version}`, bin);
const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const isRoot = process.getuid?.() === 0;
const pgBin = (bin: string) => path.join(config.db.binDir, bin);

function childEnv(service: string): NodeJS.ProcessEnv {
  return { ...process.env, SERVICE_NAME: service };
}

function initPostgres(dir: string): void {
  if (fs.existsSync(path.join(dir, 'PG_VERSION'))) return;
  fs.mkdirSync(dir, { recursive: true });
  const pwfile = path.join(path.dirname(dir), `.pgpass-init-${process.pid}`);
  fs.writeFileSync(pwfile, config.db.password + '\n', { mode: 0o600 });
  try {
    if (isRoot) {
      spawnSync('chown', ['-R', 'postgres:postgres', dir, pwfile]);
    }
    const [cmd, args] = asPostgres(pgBin('initdb'), [
      '-D', dir, '-U', config.db.user, `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8',
    ]);
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`initdb failed:\n${r.stdout}\n${r.stderr}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

async function pgReady(port = config.db.port): Promise<boolean> {
  const client = new pg.Client({
    host: config.db.host, port, user: config.db.user, password: config.db.password,
    database: 'postgres', connectionTimeoutMillis: 1000,
  });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server settings of the embedded PostgreSQL, its replica's too (a standby needs at least the primary's max_connections). */
function pgSettings(port: number, extra: string[] = []): string[] {
  return [
    `port=${port}`, 'listen_addresses=127.0.0.1',
    'shared_buffers=512MB', 'work_mem=32MB', 'maintenance_work_mem=256MB', 'max_connections=200',
    'max_wal_size=2GB', 'checkpoint_timeout=15min',
    ...extra,
    // The test store is disposable: trade durability for speed there only.
    ...(config.profile === 'test' ? ['synchronous_commit=off', 'fsync=off', 'full_page_writes=off'] : []),
  ].flatMap((s) => ['-c', s]);
}

const shellWords = (words: string[]) => words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');

/** Where the local stack's replica keeps its data: beside the primary's. */
export function replicaDataDir(): string {
  return `${pgDataDir()}-replica`;
}

/**
 * A streaming replica of the embedded primary (`REPLICA=1 npm start`; docs/operations.md "A read
 * replica"): on its first start `pg_basebackup -R` copies the primary into `dir` and leaves the
 * standby's settings there (standby.signal, primary_conninfo); from then on it runs as a hot
 * standby on `port`, replaying the primary's WAL as it streams. The readers' test starts one of
 * its own on a directory and port of its own (test/integration/read-replica.test.ts).
 */
export function replicaService(dir = replicaDataDir(), port = config.db.replicaPort): Service {
  return {
    name: 'postgres-replica',
    embedded: true,
    url: `postgresql://${config.db.host}:${port}/${config.db.database}`,
    readyTimeoutMs: 300_000,
    ready: () => pgReady(port),
    start() {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (isRoot) spawnSync('chown', ['postgres:postgres', dir]);
      const copy = shellWords([
        pgBin('pg_basebackup'), '-h', config.db.host, '-p', String(config.db.port), '-U', config.db.user,
        '-D', dir, '-R', '-X', 'stream', '--checkpoint=fast',
      ]);
      const run = shellWords([pgBin('postgres'), '-D', dir, ...pgSettings(port, ['unix_socket_directories='])]);
      // One process from the copy to the server, so the launcher's restart and stop see one child.
      const [cmd, args] = asPostgres('sh', ['-c', `[ -f ${shellWords([path.join(dir, 'PG_VERSION')])} ] || ${copy} || exit 1; exec ${run}`]);
      // The copy signs in to the primary with the store's password, in the environment only.
      return startProcess('postgres-replica', cmd, args, { env: { ...childEnv('postgres-replica'), PGPASSWORD: config.db.password } });
    },
  };
}

export function services(): Service[] {
  const d = config.dataDir;
  return [
    {
      name: 'postgres',
      embedded: !config.db.external,
      url: `postgresql://${config.db.host}:${config.db.port}/${config.db.database}`,
      readyTimeoutMs: 60_000,
      ready: () => pgReady(),
      start() {
        const dir = pgDataDir();
        initPostgres(dir);
        // Continuous archiving into the backup repository (domain/backup/pgbackrest.ts); the archive
        // command reads pgBackRest's options from the server's environment.
        const [cmd, args] = asPostgres(pgBin('postgres'), ['-D', dir, ...pgSettings(config.db.port, archiveSettings(stackTarget(dir)))]);
        return startProcess('postgres', cmd, args, { env: { ...childEnv('postgres'), ...pgbackrestEnv(stackTarget(dir)) } });
      },
    },
    {
      name: 'temporal',
      embedded: config.temporal.embedded,
      url: `http://localhost:${config.temporal.uiPort}`,
      readyTimeoutMs: 60_000,
      ready: () => tcpOpen('127.0.0.1', config.temporal.port).then((ok) => ok && httpOk(`http://127.0.0.1:${config.temporal.uiPort}/`)),
      start() {
        fs.mkdirSync(d, { recursive: true });
        return startProcess('temporal', tool('temporal-cli', TEMPORAL_CLI_VERSION, 'temporal'), [
          'server', 'start-dev',
          '--db-filename', path.join(d, 'temporal.db'),
          '--ip', '127.0.0.1',
          '--port', String(config.temporal.port),
          '--ui-port', String(config.temporal.uiPort),
          '--log-level', 'error',
          '--search-attribute', 'JobKind=Keyword',
          '--search-attribute', 'Siruta=Int',
        ], { env: childEnv('temporal') });
      },
    },
    {
      name: 'minio',
      embedded: config.s3.embedded,
      url: `http://localhost:${config.s3.consolePort}`,
      readyTimeoutMs: 60_000,
      ready: () => httpOk(`${config.s3.endpoint}/minio/health/live`).catch(() => false),
      start() {
        const dir = path.join(d, 'minio');
        fs.mkdirSync(dir, { recursive: true });
        return startProcess('minio', tool('minio', MINIO_VERSION, 'minio'), [
          'server', dir, '--quiet',
          '--address', `127.0.0.1:${config.s3.port}`,
          '--console-address', `127.0.0.1:${config.s3.consolePort}`,
        ], {
          env: {
            ...childEnv('minio'),
            MINIO_ROOT_USER: config.s3.accessKeyId,
            MINIO_ROOT_PASSWORD: config.s3.secretAccessKey,
            MINIO_BROWSER_REDIRECT: 'off',
          },
        });
      },
    },
    {
      // pgBackRest speaks S3 over HTTPS only (scripts/stack/s3TlsFront.ts); not needed when the
      // backups go to an HTTPS endpoint of their own.
      name: 's3-tls-front',
      embedded: config.s3.embedded && !config.backup.externalEndpoint,
      readyTimeoutMs: 30_000,
      ready: () => tcpOpen('127.0.0.1', config.backup.tlsPort),
      start: () => startProcess('s3-tls-front', tsx, [path.join(projectRoot, 'scripts/stack/s3TlsFront.ts')], { env: childEnv('s3-tls-front') }),
    },
    {
      name: 'maildev',
      embedded: config.mail.embedded,
      url: config.mail.webUrl,
      readyTimeoutMs: 30_000,
      ready: async () => (await tcpOpen('127.0.0.1', config.mail.smtpPort)) && (await httpOk(config.mail.webUrl)),
      start() {
        return startProcess('maildev', process.execPath, [
          path.join(projectRoot, 'node_modules/maildev/dist/bin/maildev.js'),
          '--smtp', String(config.mail.smtpPort), '--ip', '127.0.0.1',
          '--web', String(config.mail.webPort), '--web-ip', '127.0.0.1',
        ], { env: childEnv('maildev') });
      },
    },
    {
      name: 'oidc',
      embedded: config.oidc.embedded,
      url: config.oidc.issuer,
      readyTimeoutMs: 30_000,
      ready: () => httpOk(`${config.oidc.issuer}/.well-known/openid-configuration`),
      start: () => startProcess('oidc', tsx, [path.join(projectRoot, 'simulators/oidc/main.ts')], { env: childEnv('oidc') }),
    },
    {
      name: 'landreg',
      embedded: config.landreg.embedded,
      url: config.landreg.baseUrl,
      readyTimeoutMs: 120_000,
      ready: () => httpOk(`${config.landreg.baseUrl}/__sim/requests`),
      start: () => startProcess('landreg', tsx, [path.join(projectRoot, 'simulators/landreg/main.ts')], { env: childEnv('landreg') }),
    },
    {
      name: 'status-authority',
      embedded: config.statusAuthority.embedded,
      url: config.statusAuthority.baseUrl,
      readyTimeoutMs: 30_000,
      ready: () => httpOk(`${config.statusAuthority.baseUrl}/__sim/requests`),
      start: () => startProcess('status-authority', tsx, [path.join(projectRoot, 'simulators/statusAuthority/main.ts')], { env: childEnv('status-authority') }),
    },
    {
      name: 'ai',
      // Started when a provider points at it (the development defaults do); not when the
      // provider URLs point elsewhere.
      embedded: aiUsesSimulator(config.ai),
      url: `http://127.0.0.1:${config.ai.simPort}`,
      readyTimeoutMs: 30_000,
      ready: () => httpOk(`http://127.0.0.1:${config.ai.simPort}/__sim/requests`),
      start: () => startProcess('ai', tsx, [path.join(projectRoot, 'simulators/ai/main.ts')], { env: childEnv('ai') }),
    },
    {
      name: 'cfportal',
      embedded: config.cfportal.embedded,
      url: config.cfportal.baseUrl,
      readyTimeoutMs: 60_000,
      ready: () => httpOk(`${config.cfportal.baseUrl}/__sim/requests`),
      start: () => startProcess('cfportal', tsx, [path.join(projectRoot, 'simulators/cfportal/main.ts')], { env: childEnv('cfportal') }),
    },
    {
      name: 'central',
      embedded: config.central.embedded,
      url: config.central.baseUrl,
      // It indexes the landreg simulator's demo data (about 11 s) before it listens.
      readyTimeoutMs: 120_000,
      ready: () => httpOk(`${config.central.baseUrl}/__sim/requests`),
      start: () => startProcess('central', tsx, [path.join(projectRoot, 'simulators/central/main.ts')], { env: childEnv('central') }),
    },
    {
      // Our own DWG → DXF sidecar (sidecars/dwg/): its own process for crash isolation and the
      // GPL boundary; restarted like every service, so one bad drawing is not an outage.
      name: 'dwg-converter',
      embedded: config.dwg.embedded,
      url: config.dwg.url,
      readyTimeoutMs: 60_000,
      ready: () => httpOk(`${config.dwg.url}/health`),
      start: () => startProcess('dwg-converter', tsx, [path.join(projectRoot, 'sidecars/dwg/main.ts')], { env: childEnv('dwg-converter') }),
    },
    {
      name: 'pdf-service',
      embedded: config.pdfService.embedded,
      url: config.pdfService.baseUrl,
      readyTimeoutMs: 60_000,
      ready: () => httpOk(`${config.pdfService.baseUrl}/__sim/requests`),
      start: () => startProcess('pdf-service', tsx, [path.join(projectRoot, 'simulators/pdfService/main.ts')], { env: childEnv('pdf-service') }),
    },
  ].filter((s) => s.name !== 'landreg' || fs.existsSync(path.join(projectRoot, 'simulators/landreg/main.ts')));
}

/**
 * The stack's worker processes: `WORKERS` (default 1) of them, each polling every task queue, so
 * Temporal spreads the tasks over them. One is named `workers`; several `workers-1`…`workers-N`
 * (their log prefix, `SERVICE_NAME` and Temporal worker identity), each restarted on its own;
 * worker i serves its metrics on WORKER_METRICS_PORT + i.
 */
export function workerServices(count = config.workers.processes): Service[] {
  return Array.from({ length: count }, (_, i) => {
    const name = count === 1 ? 'workers' : `workers-${i + 1}`;
    return {
      name,
      embedded: true,
      readyTimeoutMs: 120_000,
      ready: () => workersPolling(name),
      start: () => startProcess(name, tsx, [path.join(projectRoot, 'workers/main.ts')], { env: { ...childEnv(name), WORKER_NAME: name, WORKER_INDEX: String(i) } }),
    };
  });
}

/** Processes of our own code, started once the infrastructure is up and migrated. */
export function appServices(): Service[] {
  return [
    ...workerServices(),
    {
      name: 'app',
      embedded: true,
      // Behind the tile gateway (which then holds the public address) it listens on its own port.
      url: gatewayEnabled() ? `http://127.0.0.1:${config.tiles.internalPort}` : config.app.publicUrl,
      readyTimeoutMs: 60_000,
      ready: () => httpOk(`http://127.0.0.1:${gatewayEnabled() ? config.tiles.internalPort : config.app.port}/api/version`),
      start: () =>
        startProcess('app', tsx, [path.join(projectRoot, 'api/server.ts')], {
          env: { ...childEnv('app'), ...(gatewayEnabled() ? webBehindGateway() : {}) },
        }),
    },
    ...(gatewayEnabled()
      ? [{ name: 'tilegate', embedded: true, url: config.app.publicUrl, readyTimeoutMs: 90_000, ready: tilegateReady, start: startTilegate }]
      : []),
  ];
}

/**
 * Whether Temporal sees a poller on the `store` task queue of the worker process of that name on
 * this host (identity `<name>@<host>:<pid>`, workers/start.ts) that is alive: the queue keeps
 * listing a killed process's pollers for minutes, so a restarted worker is ready only once its
 * own pid polls.
 */
async function workersPolling(name: string): Promise<boolean> {
  const { Connection } = await import('@temporalio/client');
  // The deadline starts before the channel's first call; on a loaded two-core host a second was
  // once spent before that call began (DEADLINE_EXCEEDED after 54 ms on the wire).
  const conn = await Connection.connect({ address: config.temporal.address, connectTimeout: 5000 });
  try {
    const res = await conn.workflowService.describeTaskQueue({
      namespace: config.temporal.namespace,
      taskQueue: { name: 'store' },
      taskQueueType: 1,
    });
    const mine = `${name}@${os.hostname()}:`;
    return (res.pollers ?? []).some((p) => p.identity?.startsWith(mine) && pidAlive(Number(p.identity.slice(mine.length))));
  } finally {
    await conn.close();
  }
}

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive but another user's (not ours, yet alive all the same).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
