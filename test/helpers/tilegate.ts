/**
 * The tile gateway's binary (native/tilegate, built by scripts/bootstrap) in front of a test's app,
 * as the launcher runs it: the plan scripts/stack/tilegate.ts writes, the test store's database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { config } from '../../domain/config';
import { freeLoopbackPort } from '../../domain/net/loopback';
import { TILEGATE_BINARY, tilegatePlan } from '../../scripts/stack/tilegate';
import { until } from './wait';

export interface Gate {
  url: string;
  /** Its metrics (Prometheus text). */
  metrics: string;
  proc: ChildProcess;
  dir: string;
}

/**
 * The gateway in front of `upstream`. `ready` (default): wait until the app answers through it;
 * `plan`: fields of the plan to change; `env`: more of its environment (a read replica's URL).
 */
export async function startGate(upstream: string, opts: { ready?: boolean; plan?: Record<string, unknown>; env?: Record<string, string> } = {}): Promise<Gate> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilegate-test-'));
  const plan = path.join(dir, 'plan.json');
  fs.writeFileSync(plan, JSON.stringify({ ...tilegatePlan(), ...opts.plan }));
  const [port, metricsPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
  const proc = spawn(TILEGATE_BINARY, [], {
    env: {
      ...process.env,
      TILEGATE_PLAN: plan,
      TILEGATE_LISTEN: `127.0.0.1:${port}`,
      TILEGATE_UPSTREAM: upstream,
      TILEGATE_METRICS_LISTEN: `127.0.0.1:${metricsPort}`,
      TILEGATE_DATABASE_URL: config.db.url,
      ...opts.env,
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
  // Up once it hears the session changes (before that every tile goes to the web process, which a
  // test would read as the gateway not answering) and, when asked, the app answers through it.
  await until('the tile gateway to answer', async () =>
    (await gateCounter(metrics, 'tilegate_session_listener_up')) === 1 && (opts.ready === false || (await fetch(`${url}/api/version`).then((r) => r.ok, () => false))),
  );
  return { url, metrics, proc, dir };
}

export function stopGate(g: Gate | undefined): void {
  g?.proc.kill('SIGTERM');
  if (g) fs.rmSync(g.dir, { recursive: true, force: true });
}

/** One series of the gateway's metrics (NaN when absent or unreachable). */
export async function gateCounter(metricsUrl: string, name: string): Promise<number> {
  const text = await fetch(metricsUrl).then((r) => r.text(), () => '');
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

/** Tiles the gateway answered itself so far (rendered, from its cache, or 304). */
export const answeredByGate = async (g: Gate) =>
  (await gateCounter(g.metrics, 'tilegate_tile_cache_misses_total')) +
  (await gateCounter(g.metrics, 'tilegate_tile_cache_hits_total')) +
  (await gateCounter(g.metrics, 'tilegate_tile_not_modified_total'));
