/**
 * `npm start` (and the test runner, with STACK_PROFILE=test): starts the whole local stack in
 * dependency order with health checks, prefixed logs and the URLs printed at the end; one Ctrl-C
 * stops everything it started. Options:
 *   --ready-file <path>   write this file once everything is up (removed on exit)
 *   --infra-only          start infrastructure and simulators, not the workers and the app
 *   --fresh               delete the profile's data first (the test runner's clean slate)
 *   --no-seed             do not seed the demo data (the dev profile seeds it by default)
 * `WORKERS=N` starts N worker processes (default 1) polling the same task queues; `WEB=N` N web
 * processes behind the one app port (Node's cluster in api/server.ts, their limits shared through
 * PostgreSQL); `REPLICA=1` a streaming replica of PostgreSQL that the web process's readers use
 * (docs/operations.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { config, projectRoot } from '../domain/config';
import { services, appServices, pgDataDir, replicaDataDir, replicaService, type Service } from './stack/services';
import { stackTarget } from '../domain/backup/service';
import { RESTART_STABLE_MS, restartDelayMs, startReady, waitFor, prefixer, startProcess, type Proc } from './stack/proc';
import { wrongNode } from './stack/runtime';

const say = prefixer('stack');
const args = process.argv.slice(2);
const readyFile = args.includes('--ready-file') ? path.resolve(args[args.indexOf('--ready-file') + 1]) : undefined;
const infraOnly = args.includes('--infra-only');
const fresh = args.includes('--fresh');
// Tests and benchmarks make their own data; only the developer's stack gets the demo seed.
const seed = !args.includes('--no-seed') && !infraOnly && config.profile === 'dev';
const started: Proc[] = [];
let stopping = false;

function buildInfo(): void {
  try {
    process.env.GIT_COMMIT ??= execFileSync('git', ['rev-parse', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
  } catch {
    /* not a git checkout: /api/version says 'unknown' */
  }
  process.env.BUILD_TIME ??= new Date().toISOString();
}

async function bringUp(svc: Service): Promise<void> {
  if (!svc.embedded) {
    say(`${svc.name}: external (${svc.url ?? 'configured by environment'})`);
    return;
  }
  if (await svc.ready().catch(() => false)) {
    say(`${svc.name}: already running, reused`);
    return;
  }
  const t0 = Date.now();
  const proc = await startReady(svc, { say, started });
  say(`${svc.name}: ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  watch(svc, proc, 0, Date.now());
}

/**
 * A service that dies once it was ready (crash, out of memory, SIGKILL) is started again after a
 * growing delay, with a log line, while the others keep serving: the workers' work is handed to
 * the new process by Temporal, PostgreSQL, Temporal and MinIO keep their data on disk, and a
 * simulator starts from its seed. One crash is a line in the log, not an outage of the stack.
 */
function watch(svc: Service, proc: Proc, failures: number, startedAt: number): void {
  void proc.exited.then(async (code) => {
    if (stopping) return;
    const attempt = Date.now() - startedAt >= RESTART_STABLE_MS ? 1 : failures + 1;
    const delay = restartDelayMs(attempt);
    say(`${svc.name} stopped unexpectedly (code ${code}); restarting in ${(delay / 1000).toFixed(0)} s (attempt ${attempt})`);
    await new Promise((r) => setTimeout(r, delay));
    if (stopping) return;
    const next = svc.start();
    const slot = started.indexOf(proc);
    if (slot >= 0) started[slot] = next;
    else started.push(next);
    watch(svc, next, attempt, Date.now());
    const up = await waitFor(svc.name, svc.ready, { timeoutMs: svc.readyTimeoutMs, proc: next }).then(() => true, () => false);
    if (up) say(`${svc.name}: restarted`);
  });
}

async function prepareDatabase(): Promise<void> {
  const admin = new pg.Client({
    host: config.db.host, port: config.db.port, user: config.db.user, password: config.db.password, database: 'postgres',
  });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [config.db.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${config.db.database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
  const migratePath = path.join(projectRoot, 'domain/db/migrate.ts');
  if (fs.existsSync(migratePath)) {
    const { migrate } = await import('../domain/db/migrate');
    const { applied } = await migrate(config.db.url);
    say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'database schema up to date');
  }
}

/**
 * `REPLICA=1`: a streaming replica of the embedded primary (made once, then reused), and the web
 * process's readers pointed at it unless DATABASE_READ_URL already names a server.
 */
async function startReplica(): Promise<void> {
  if (config.db.external) {
    say('REPLICA=1 ignored: the primary is external (set DATABASE_READ_URL to its replica)');
    return;
  }
  const replica = replicaService();
  await bringUp(replica);
  process.env.DATABASE_READ_URL ??=
    `postgresql://${encodeURIComponent(config.db.user)}:${encodeURIComponent(config.db.password)}@${config.db.host}:${config.db.replicaPort}/${config.db.database}`;
}

async function prepareStorage(): Promise<void> {
  const { ensureBuckets } = await import('../domain/storage/service');
  const created = await ensureBuckets();
  if (created.length) say(`buckets created: ${created.join(', ')}`);
}

/**
 * The backup bucket and pgBackRest's stanza, once PostgreSQL and the object store answer: the
 * server's archive command pushes WAL from then on. A failure is a warning: the stack still runs,
 * and the health line shows the backups red.
 */
async function prepareBackups(): Promise<void> {
  if (config.db.external) return;
  const { ensureBackupRepository } = await import('../domain/backup/service');
  try {
    await ensureBackupRepository(stackTarget(pgDataDir()));
  } catch (err) {
    say(`backups not ready: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function infraAlreadyRunning(): Promise<boolean> {
  const embedded = services().filter((s) => s.embedded);
  const states = await Promise.all(embedded.map((s) => s.ready().catch(() => false)));
  return states.some(Boolean);
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  if (readyFile) fs.rmSync(readyFile, { force: true });
  for (const proc of [...started].reverse()) await proc.stop();
  say('stopped');
  process.exit(code);
}

async function main(): Promise<void> {
  // Every service inherits this process's PATH and Node: refuse rather than run them on another.
  const refused = wrongNode();
  if (refused) throw new Error(refused);
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  buildInfo();
  if (fresh) {
    if (await infraAlreadyRunning()) {
      say('--fresh: services of this profile are already running; reusing their data');
    } else {
      for (const dir of [config.dataDir, pgDataDir(), replicaDataDir()]) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  say(`profile ${config.profile}, data in ${path.relative(projectRoot, config.dataDir) || config.dataDir}`);
  const infra = services();
  await Promise.all(infra.map(bringUp));
  await Promise.all([prepareDatabase(), prepareStorage()]);
  await prepareBackups();
  if (config.db.localReplica) await startReplica();
  const apps = infraOnly ? [] : appServices();
  await Promise.all(apps.map(bringUp));

  const lines = [
    ...(infraOnly ? [] : [`Geoportal             ${config.app.publicUrl}   (dan@birou.ro / parola-dan)`]),
    `Temporal Web UI       http://localhost:${config.temporal.uiPort}`,
    `MailDev (e-mail)      ${config.mail.webUrl}`,
    `MinIO console         http://localhost:${config.s3.consolePort}   (${config.s3.accessKeyId})`,
    `Identity provider     ${config.oidc.issuer}`,
    ...(infra.some((s) => s.name === 'landreg') ? [`Land-registry sim     ${config.landreg.baseUrl}`] : []),
    ...(infra.some((s) => s.name === 'cfportal') ? [`Certificate portal    ${config.cfportal.baseUrl}`] : []),
    `DWG converter         ${config.dwg.url}/health`,
    `PostgreSQL            ${config.db.host}:${config.db.port}/${config.db.database}`,
    ...(config.db.localReplica && !config.db.external ? [`PostgreSQL replica    ${config.db.host}:${config.db.replicaPort} (readers)`] : []),
  ];
  say('ready. Ctrl-C stops everything.');
  for (const l of lines) say('  ' + l);
  if (readyFile) fs.writeFileSync(readyFile, new Date().toISOString());
  if (seed) seedDemo();
}

/** Idempotent: a quick no-op when the store already holds data (scripts/seed-demo.ts). */
function seedDemo(): void {
  const tsx = path.join(projectRoot, 'node_modules/.bin/tsx');
  const proc = startProcess('seed', tsx, [path.join(projectRoot, 'scripts/seed-demo.ts')], { env: process.env });
  started.push(proc);
  void proc.exited.then((code) => {
    started.splice(started.indexOf(proc), 1);
    say(code === 0 ? 'demo data ready' : `demo seed failed (code ${code}); the stack keeps running`);
  });
}

main().catch(async (err) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
});
