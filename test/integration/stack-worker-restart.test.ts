/**
 * Issue 13, deliverable 5: a workers process killed with SIGKILL is restarted by the local stack
 * launcher (with a backoff and a log line) while the web process keeps serving. Runs against the
 * running test stack; only this clone's workers process is killed, by its pid.
 */
import path from 'node:path';
import { projectRoot, config } from '../../domain/config';
import { workerServices } from '../../scripts/stack/services';
import { RESTART_STABLE_MS, restartDelayMs } from '../../scripts/stack/proc';
import { pidsRunning } from '../helpers/stackProcs';

const WORKERS_ENTRY = path.join(projectRoot, 'workers/main.ts');

const workersPids = () => pidsRunning(WORKERS_ENTRY);

/**
 * Every worker process of the stack ready as its launcher judges it: a live pid of its own polls
 * Temporal (the queue keeps listing a killed process's pollers for minutes, so "any poller" would
 * call a worker back that is still starting; a test after this one reads its metrics port).
 */
const allWorkersReady = async () => (await Promise.all(workerServices().map((s) => s.ready().catch(() => false)))).every(Boolean);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the restart backoff grows and is capped', () => {
  expect([1, 2, 3, 4, 10].map(restartDelayMs)).toEqual([1000, 2000, 4000, 8000, 30_000]);
  expect(RESTART_STABLE_MS).toBeGreaterThan(restartDelayMs(10));
});

test('SIGKILL on the workers: the web keeps answering, the workers come back', async () => {
  expect(await allWorkersReady()).toBe(true);
  const pids = workersPids();
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  const web = `http://127.0.0.1:${config.app.port}/api/version`;
  let back = false;
  for (let i = 0; i < 90 && !back; i++) {
    expect((await fetch(web)).status).toBe(200);
    await sleep(1000);
    const now = workersPids();
    back = now.length > 0 && now.every((p) => !pids.includes(p)) && (await allWorkersReady());
  }
  expect(back).toBe(true);
}, 120_000);
