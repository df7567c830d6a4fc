/**
 * The launcher's start of a service whose port is taken (scripts/stack/proc.ts startReady): a
 * real node process listening on a real port that a socket of this test holds for a while, held
 * for good, or a service that fails for another reason.
 */
import net from 'node:net';
import { PORT_TAKEN_ATTEMPTS, startReady, startProcess, type Proc } from '../../scripts/stack/proc';
import { freeLoopbackPort } from '../../domain/net/loopback';

/** Holds the port as a stray socket would: connections are dropped, nothing is served. */
async function hold(port: number): Promise<net.Server> {
  const server = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return server;
}

/** A service that serves `probe` on `port` (and dies of EADDRINUSE when it cannot), or fails as told. */
function listener(port: number, script = `require('node:http').createServer((q, s) => s.end('probe')).listen(${port}, '127.0.0.1')`) {
  let starts = 0;
  return {
    name: 'probe',
    readyTimeoutMs: 10_000,
    get starts() {
      return starts;
    },
    start: (): Proc => {
      starts++;
      return startProcess('probe', process.execPath, ['-e', script], { quiet: true });
    },
    ready: () => fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) }).then((r) => r.text()).then((t) => t === 'probe', () => false),
  };
}

const live: Proc[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((p) => p.stop()));
});

test('a port held for a moment: the service is started again and comes up, with a line saying why', async () => {
  const port = await freeLoopbackPort();
  const held = await hold(port);
  setTimeout(() => held.close(), 1500);
  const svc = listener(port);
  const lines: string[] = [];
  const proc = await startReady(svc, { say: (l) => lines.push(l), started: live });
  expect(svc.starts).toBeGreaterThanOrEqual(2);
  expect(lines[0]).toBe(`probe: its port is taken; starting it again in 1 s (attempt 2 of ${PORT_TAKEN_ATTEMPTS})`);
  // The dead attempts left the launcher's list; the one that listens is in it.
  expect(live).toEqual([proc]);
  await expect(svc.ready()).resolves.toBe(true);
}, 30_000);

test('a port held for good: the start fails after the last attempt, with the service\'s own words', async () => {
  const port = await freeLoopbackPort();
  const held = await hold(port);
  try {
    const svc = listener(port);
    const lines: string[] = [];
    const err = await startReady(svc, { say: (l) => lines.push(l), started: live }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^probe exited \(code 1\) before becoming ready:[\s\S]*EADDRINUSE/);
    expect(svc.starts).toBe(PORT_TAKEN_ATTEMPTS);
    expect(lines.map((l) => l.replace(/ in \d s/, ''))).toEqual(
      [2, 3, 4].map((n) => `probe: its port is taken; starting it again (attempt ${n} of ${PORT_TAKEN_ATTEMPTS})`),
    );
  } finally {
    held.close();
  }
}, 30_000);

test('a service that fails for another reason is not started again', async () => {
  const port = await freeLoopbackPort();
  const svc = listener(port, `console.error('configuration missing'); process.exit(3)`);
  const lines: string[] = [];
  const err = await startReady(svc, { say: (l) => lines.push(l), started: live }).catch((e: Error) => e);
  expect((err as Error).message).toBe('probe exited (code 3) before becoming ready:\nconfiguration missing');
  expect(svc.starts).toBe(1);
  expect(lines).toEqual([]);
}, 30_000);
