/**
 * A PostgreSQL cluster of a test's own (initdb in a temporary directory, a free port), for tests
 * that stop, wipe and restore a server: the shared test stack's server stays untouched. Started
 * with the product's archive settings and pgBackRest environment (domain/backup/pgbackrest.ts),
 * as the stack starts its own.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { config } from '../../domain/config';
import { archiveSettings, asPostgres, pgbackrestEnv, type BackupTarget } from '../../domain/backup/pgbackrest';
import { freeLoopbackPort } from '../../domain/net/loopback';

export interface ScratchCluster {
  target: BackupTarget;
  url(database: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Deletes the data directory (the "lost disk"). */
  wipe(): void;
  remove(): Promise<void>;
}

/**
 * `serverEnv`: the server's pgBackRest environment instead of the product's (the compose
 * deployment's database host: its configuration file and the compose's variables).
 */
export async function scratchCluster(name: string, o: { serverEnv?: (t: BackupTarget) => Record<string, string> } = {}): Promise<ScratchCluster> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const dataDir = path.join(root, 'pg');
  const port = await freeLoopbackPort();
  const user = config.db.user;
  const password = 'drill-password';
  const asRoot = process.getuid?.() === 0;
  if (asRoot) spawnSync('chown', ['-R', 'postgres:postgres', root]);
  const pwfile = path.join(root, 'pw');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (asRoot) spawnSync('chown', ['postgres:postgres', pwfile]);
  const [cmd, args] = asPostgres(path.join(config.db.binDir, 'initdb'), ['-D', dataDir, '-U', user, `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8']);
  const init = spawnSync(cmd, args, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const target: BackupTarget = {
    stanza: name.replace(/[^a-z0-9-]/gi, '-'),
    repoPath: `/drills/${name}`,
    pgDataDir: dataDir,
    pgPort: port,
    pgSocketDir: '/tmp',
    pgUser: user,
    pgPassword: password,
  };
  let server: ChildProcess | null = null;
  const url = (database: string) => `postgresql://${user}:${password}@127.0.0.1:${port}/${database}`;
  const ready = async () => {
    const c = new pg.Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await c.end().catch(() => undefined);
    }
  };
  const cluster: ScratchCluster = {
    target,
    url,
    async start() {
      const settings = [`port=${port}`, 'listen_addresses=127.0.0.1', 'fsync=off', 'max_connections=40', ...archiveSettings(target)].flatMap((s) => ['-c', s]);
      const [c, a] = asPostgres(path.join(config.db.binDir, 'postgres'), ['-D', dataDir, ...settings]);
      server = spawn(c, a, { env: { ...process.env, ...(o.serverEnv ?? pgbackrestEnv)(target) }, stdio: 'ignore' });
      const deadline = Date.now() + 30_000;
      while (!(await ready())) {
        if (Date.now() > deadline) throw new Error('the scratch cluster did not start');
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      const s = server;
      server = null;
      if (!s || s.exitCode !== null) return;
      const exited = new Promise((r) => s.once('exit', r));
      s.kill('SIGINT');
      await exited;
    },
    wipe() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    async remove() {
      await cluster.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return cluster;
}
