/**
 * The local stack launcher restarts a process that died (issue 13, deliverable 5): the workers,
 * the DWG conversion sidecar and the tile gateway, each SIGKILLed by its pid (only this clone's),
 * come back with a backoff and a log line while the web process keeps serving. Runs against the running test
 * stack, alone after the other suites (scripts/test.sh): a suite beside it would meet the gap.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { projectRoot, config } from '../../domain/config';
import { workerServices } from '../../scripts/stack/services';
import { RESTART_STABLE_MS, restartDelayMs } from '../../scripts/stack/proc';
import { pidsRunning } from '../helpers/stackProcs';
import { TILEGATE_BINARY, gatewayEnabled } from '../../scripts/stack/tilegate';
import { execFileSync } from 'node:child_process';
import { writeDwgFixtures } from '../helpers/dwgFixtures';
import { until } from '../helpers/wait';

const WORKERS_ENTRY = path.join(projectRoot, 'workers/main.ts');

/**
 * Every worker process of the stack ready as its launcher judges it: a live pid of its own polls
 * Temporal (the queue keeps listing a killed process's pollers for minutes, so "any poller" would
 * call a worker back that is still starting; a test after this one reads its metrics port).
 */
const allWorkersReady = async () => (await Promise.all(workerServices().map((s) => s.ready().catch(() => false)))).every(Boolean);

/**
 * SIGKILLs every process of the stack running `entry`, then waits, checking each second (after
 * `eachSecond`), for new ones in their place with `ready` holding; fails after `seconds`.
 */
async function killAndAwaitReturn(entry: string, ready: () => Promise<boolean>, seconds: number, eachSecond = async () => {}): Promise<void> {
  const pids = pidsRunning(entry);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  const back = async () => {
    await eachSecond();
    const now = pidsRunning(entry);
    return now.length > 0 && now.every((p) => !pids.includes(p)) && (await ready());
  };
  await until(`${path.relative(projectRoot, entry)} back after SIGKILL`, back, seconds * 1000, 1000);
}

test('the restart backoff grows and is capped', () => {
  expect([1, 2, 3, 4, 10].map(restartDelayMs)).toEqual([1000, 2000, 4000, 8000, 30_000]);
  expect(RESTART_STABLE_MS).toBeGreaterThan(restartDelayMs(10));
});

test('SIGKILL on the workers: the web keeps answering, the workers come back', async () => {
  expect(await allWorkersReady()).toBe(true);
  const web = `http://127.0.0.1:${config.app.port}/api/version`;
  const webAnswers = async () => void expect((await fetch(web)).status).toBe(200);
  await killAndAwaitReturn(WORKERS_ENTRY, allWorkersReady, 90, webAnswers);
}, 120_000);

test('SIGKILL on the DWG sidecar: it comes back and converts again', async () => {
  const entry = path.join(projectRoot, 'sidecars/dwg/main.ts');
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'stack-restart-'));
  try {
    await writeDwgFixtures(work, [{ name: 'lines', lines: [[585000, 395000, 585040, 395000], [585040, 395000, 585040, 395025]] }]);
    const healthy = () => fetch(`${config.dwg.url}/health`).then((r) => r.ok, () => false);
    await killAndAwaitReturn(entry, healthy, 60);
    const r = await fetch(`${config.dwg.url}/convert`, { method: 'POST', body: await fs.readFile(path.join(work, 'lines.dwg')) });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dxf-entity-types')).toBe('LINE=2');
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}, 90_000);

/** This clone's tile gateway processes (the binary under this checkout). */
const gatewayPids = () =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter((f) => f[1] === TILEGATE_BINARY)
    .map((f) => Number(f[0]));

test('SIGKILL on the tile gateway: it comes back and the app answers on its port again', async () => {
  expect(gatewayEnabled()).toBe(true);
  const pids = gatewayPids();
  expect(pids.length).toBe(1);
  process.kill(pids[0], 'SIGKILL');
  const web = `http://127.0.0.1:${config.app.port}/api/version`;
  await until(
    'the tile gateway back after SIGKILL',
    async () => {
      const now = gatewayPids();
      return now.length === 1 && now[0] !== pids[0] && (await fetch(web).then((r) => r.status === 200, () => false));
    },
    60_000,
    500,
  );
}, 90_000);
