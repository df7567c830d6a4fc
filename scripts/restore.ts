/**
 * `npm run restore -- [--to <time>]`: brings a stopped stack back to the newest backup, or to a
 * point in time (`--to 2026-11-28T14:05:00+02:00`, any form `Date` reads): the database files from
 * the newest backup before that time and the WAL replayed up to it, and the buckets as they were
 * then (docs/operations.md "Restore"). The object store must answer: the repository is in it; the
 * local MinIO (and the TLS front pgBackRest talks to) are started for the restore when they are
 * not running. Refuses while the stack's PostgreSQL runs.
 */
import pg from 'pg';
import { config, refuseUnsafeProductionStart } from '../domain/config';
import { restore, stackTarget } from '../domain/backup/service';
import { pgDataDir, services } from './stack/services';
import { prefixer, waitFor, type Proc } from './stack/proc';

refuseUnsafeProductionStart();
const say = prefixer('restore');

function parseTo(argv: string[]): Date | undefined {
  const i = argv.indexOf('--to');
  if (i < 0) return undefined;
  const at = new Date(argv[i + 1] ?? '');
  if (Number.isNaN(at.getTime())) throw new Error(`--to: "${argv[i + 1] ?? ''}" is not a time (e.g. 2026-11-28T14:05:00+02:00)`);
  if (at.getTime() > Date.now()) throw new Error('--to: the time is in the future');
  return at;
}

async function databaseRunning(): Promise<boolean> {
  const client = new pg.Client({ host: config.db.host, port: config.db.port, user: config.db.user, password: config.db.password, database: 'postgres', connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const to = parseTo(process.argv.slice(2));
  if (config.db.external && !config.backup.pgData) {
    throw new Error('DATABASE_URL points at a server the stack does not start: name its data directory with PGDATA (docs/operations.md "Restore")');
  }
  if (await databaseRunning()) throw new Error(`PostgreSQL answers on port ${config.db.port}: stop the stack first (Ctrl-C on npm start)`);
  const started: Proc[] = [];
  try {
    for (const svc of services().filter((s) => s.embedded && (s.name === 'minio' || s.name === 's3-tls-front'))) {
      if (await svc.ready().catch(() => false)) continue;
      const proc = svc.start();
      started.push(proc);
      await waitFor(svc.name, svc.ready, { timeoutMs: svc.readyTimeoutMs, proc });
    }
    // A restore runs on the database's host, on its data directory: never through the TLS server a worker's backup uses.
    const target = { ...stackTarget(pgDataDir()), pgHost: undefined };
    const began = Date.now();
    say(to ? `restoring to ${to.toISOString()}…` : 'restoring to the newest state the archive holds…');
    const { objects, reached } = await restore(target, { to, binDir: config.db.binDir });
    say(reached === 'target' ? 'database replayed up to the time given' : 'database replayed to the end of the archive (no later write in it)');
    say(`objects: ${objects.restored} put back, ${objects.removed} removed (manifest ${objects.manifest ?? 'none'})`);
    say(`restored and promoted in ${((Date.now() - began) / 1000).toFixed(1)} s. Start the stack: npm start`);
  } finally {
    for (const p of started.reverse()) await p.stop();
  }
}

main().catch((err) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
