/**
 * The compose deployment's backups, run between local processes (there is no Docker daemon on
 * the build machine; docs/operations.md "Backups" says what was and was not run): the TLS
 * material from deploy/backup/certs.sh, a PostgreSQL cluster whose archive command reads
 * deploy/postgres/pgbackrest.conf (the file the database image carries) with the compose's
 * variables, `pgbackrest server` on that file, the S3 TLS front with the deployment's
 * certificate, verified against its CA, and the workers' side (domain/backup/pgbackrest.ts with
 * the compose's BACKUP_* settings) taking a backup through the TLS server, into an encrypted
 * repository, as the compose's workers do. A client certificate the CA did not sign is refused;
 * a restore as the compose's `restore` service runs it brings the data back.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { config, projectRoot } from '../../domain/config';
import { s3 } from '../../domain/storage/s3';
import { listAll } from '../../domain/backup/objects';
import { asPostgres, pgbackrest, repoBackups, switchWal, type BackupTarget } from '../../domain/backup/pgbackrest';
import { ensureBackupRepository, restore, runBackup, walArchivedUpTo } from '../../domain/backup/runs';
import { freeLoopbackPort } from '../../domain/net/loopback';
import { scratchCluster, type ScratchCluster } from '../helpers/scratchCluster';

const tag = `compose${process.pid}${Date.now().toString(36)}`;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'backup-compose-'));
const tls = path.join(root, 'tls');
const key = 'a-repository-key-of-at-least-32-characters!';

let cluster: ScratchCluster;
let front: ChildProcess;
let server: ChildProcess;
let worker: BackupTarget;
let dbHostEnv: Record<string, string>;
const saved = { verifyTls: config.backup.verifyTls, s3CaFile: config.backup.s3CaFile, encryptionKey: config.backup.encryptionKey };

function waitPort(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listens on ${port}`));
        else setTimeout(attempt, 200);
      });
    };
    attempt();
  });
}

async function stop(p: ChildProcess | undefined): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  // The deployment's CA, the servers' certificate and the workers' client certificate, as `backup-certs` makes them.
  fs.chmodSync(root, 0o755);
  // pgBackRest 2.45 matches a certificate's DNS names only: the servers are `localhost` here.
  execFileSync('sh', [path.join(projectRoot, 'deploy/backup/certs.sh'), tls, 'localhost']);

  // The S3 TLS front as the compose's `s3-tls` service runs it: the deployment's certificate.
  const frontPort = await freeLoopbackPort();
  front = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'scripts/stack/s3TlsFront.ts')], {
    env: { ...process.env, BACKUP_S3_TLS_PORT: String(frontPort), BACKUP_S3_TLS_CERT_FILE: `${tls}/server.crt`, BACKUP_S3_TLS_KEY_FILE: `${tls}/server.key` },
    stdio: 'ignore',
  });
  await waitPort(frontPort);

  // The database host: its pgBackRest reads the image's file; the compose's variables (and this
  // machine's paths and ports) come as the environment, which overrides the file.
  const tlsServerPort = await freeLoopbackPort();
  const stanza = tag;
  const dbEnvFor = (t: BackupTarget): Record<string, string> => ({
    PGBACKREST_CONFIG: path.join(projectRoot, 'deploy/postgres/pgbackrest.conf'),
    PGBACKREST_STANZA: stanza,
    PGBACKREST_REPO1_PATH: `/drills/${tag}`,
    PGBACKREST_REPO1_S3_BUCKET: config.backup.bucket,
    PGBACKREST_REPO1_S3_ENDPOINT: 'localhost',
    PGBACKREST_REPO1_STORAGE_PORT: String(frontPort),
    PGBACKREST_REPO1_S3_REGION: config.s3.region,
    PGBACKREST_REPO1_S3_KEY: config.s3.accessKeyId,
    PGBACKREST_REPO1_S3_KEY_SECRET: config.s3.secretAccessKey,
    PGBACKREST_REPO1_CIPHER_TYPE: 'aes-256-cbc',
    PGBACKREST_REPO1_CIPHER_PASS: key,
    PGBACKREST_REPO1_STORAGE_CA_FILE: `${tls}/ca.crt`,
    PGBACKREST_PG1_PATH: t.pgDataDir,
    PGBACKREST_PG1_SOCKET_PATH: t.pgSocketDir,
    PGBACKREST_PG1_PORT: String(t.pgPort),
    PGBACKREST_PG1_USER: t.pgUser,
    PGPASSWORD: t.pgPassword,
    PGBACKREST_LOCK_PATH: `/tmp/pgbackrest-${tag}-db`,
    PGBACKREST_TLS_SERVER_PORT: String(tlsServerPort),
    PGBACKREST_TLS_SERVER_CA_FILE: `${tls}/ca.crt`,
    PGBACKREST_TLS_SERVER_CERT_FILE: `${tls}/server.crt`,
    PGBACKREST_TLS_SERVER_KEY_FILE: `${tls}/server.key`,
  });
  cluster = await scratchCluster(tag, { serverEnv: dbEnvFor });
  dbHostEnv = dbEnvFor(cluster.target);
  await cluster.start();
  const [cmd, args] = asPostgres(config.backup.pgbackrest, ['server']);
  server = spawn(cmd, args, { env: { ...process.env, ...dbHostEnv }, stdio: 'ignore' });
  await waitPort(tlsServerPort);

  // The workers' side, with the compose's BACKUP_* settings.
  process.env.BACKUP_S3_ENDPOINT = `https://localhost:${frontPort}`;
  Object.assign(config.backup, { verifyTls: true, s3CaFile: `${tls}/ca.crt`, encryptionKey: key });
  worker = {
    ...cluster.target,
    stanza,
    repoPath: `/drills/${tag}`,
    pgHost: { host: 'localhost', port: tlsServerPort, caFile: `${tls}/ca.crt`, certFile: `${tls}/client.crt`, keyFile: `${tls}/client.key` },
  };
}, 120_000);

afterAll(async () => {
  await stop(server);
  await cluster?.remove();
  await stop(front);
  delete process.env.BACKUP_S3_ENDPOINT;
  Object.assign(config.backup, saved);
  for (const prefix of [`drills/${tag}/`, `runs/${tag}/`, `objects/${tag}/`]) {
    for (const o of await listAll(config.backup.bucket, prefix).catch(() => [])) {
      await s3().send(new DeleteObjectCommand({ Bucket: config.backup.bucket, Key: o.Key! }));
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
}, 120_000);

test('the workers back up the database host through its TLS server, and a restore brings it back', async () => {
  // The workers create the stanza through the TLS server at start (workers/main.ts), as in compose.
  await ensureBackupRepository(worker);
  const db = new pg.Client({ connectionString: cluster.url('postgres') });
  await db.connect();
  await db.query(`CREATE TABLE compose_drill (note text)`);
  await db.query(`INSERT INTO compose_drill VALUES ('înainte de copie')`);
  await db.end();

  const { run } = await runBackup(worker, { id: `${tag}-1`, type: 'full', buckets: [] });
  expect(run).toMatchObject({ status: 'done', type: 'full' });
  const sets = await repoBackups(worker);
  expect(sets.map((b) => b.label)).toEqual([run.label]);

  // The database host's archive command (the image's file) pushes a later write's WAL into the same repository.
  const after = new pg.Client({ connectionString: cluster.url('postgres') });
  await after.connect();
  await after.query(`INSERT INTO compose_drill VALUES ('după copie')`);
  await after.end();
  const switched = new Date();
  await switchWal(cluster.target);
  let upTo: string | null = null;
  for (let i = 0; i < 60 && !(upTo && Date.parse(upTo) >= switched.getTime() - 1000); i++) {
    await new Promise((r) => setTimeout(r, 500));
    upTo = await walArchivedUpTo(worker);
  }
  expect(Date.parse(upTo!)).toBeGreaterThanOrEqual(switched.getTime() - 1000);

  // The repository is encrypted: without the key it does not open.
  const noKey = Object.fromEntries(Object.entries(dbHostEnv).filter(([k]) => !k.includes('CIPHER')));
  const plain = spawnSync(config.backup.pgbackrest, ['info', '--output=json'], { env: { ...process.env, ...noKey }, encoding: 'utf8' });
  expect(`${plain.stdout}${plain.stderr}`).toMatch(/cipher|encrypt|unable to load info file/i);

  // The restore as the compose's `restore` service runs it: on the data directory, with the workers' settings.
  await cluster.stop();
  cluster.wipe();
  const restored = await restore({ ...worker, pgHost: undefined }, { binDir: config.db.binDir, buckets: [] });
  expect(restored.reached).toBe('end-of-archive');
  await cluster.start();
  const back = new pg.Client({ connectionString: cluster.url('postgres') });
  await back.connect();
  expect((await back.query(`SELECT note FROM compose_drill ORDER BY note DESC`)).rows).toEqual([{ note: 'înainte de copie' }, { note: 'după copie' }]);
  await back.end();
}, 300_000);

test('a client certificate the deployment CA did not sign is refused by the TLS server', async () => {
  const own = path.join(root, 'intruder');
  fs.mkdirSync(own);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=workers', '-keyout', `${own}/client.key`, '-out', `${own}/client.crt`], { stdio: 'ignore' });
  execFileSync('chown', ['-R', 'postgres:postgres', own]);
  const intruder: BackupTarget = { ...worker, pgHost: { ...worker.pgHost!, certFile: `${own}/client.crt`, keyFile: `${own}/client.key` } };
  await expect(pgbackrest(intruder, 'check', [], 60_000)).rejects.toThrow(/pgbackrest check/);
  // The deployment's own client certificate passes the same check.
  await expect(pgbackrest(worker, 'check', [], 120_000)).resolves.toEqual(expect.any(String));
}, 180_000);
