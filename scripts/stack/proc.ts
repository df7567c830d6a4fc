/**
 * Child processes of the local stack: each runs in its own process group (so a tsx wrapper and
 * its node child stop together), with every output line prefixed by the service's name.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import readline from 'node:readline';

const COLORS = [36, 33, 35, 32, 34, 91, 92, 93, 94, 95, 96];
let nextColor = 0;
const width = 10;

export interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Last output lines, shown when the service fails to come up. */
  tail: string[];
  stop(timeoutMs?: number): Promise<void>;
}

export function prefixer(name: string): (line: string) => void {
  const color = COLORS[nextColor++ % COLORS.length];
  const tag = process.stdout.isTTY ? `\x1b[${color}m${name.padEnd(width)}\x1b[0m│ ` : `${name.padEnd(width)}| `;
  return (line) => process.stdout.write(tag + line + '\n');
}

export function startProcess(name: string, cmd: string, args: string[], opts: SpawnOptions & { quiet?: boolean } = {}): Proc {
  const print = prefixer(name);
  const child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
    if (!opts.quiet) print(line);
  };
  readline.createInterface({ input: child.stdout! }).on('line', onLine);
  readline.createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : null)));
    child.on('error', (err) => {
      onLine(`failed to start: ${err.message}`);
      resolve(127);
    });
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    name,
    child,
    exited,
    tail,
    async stop(timeoutMs = 10_000) {
      if (done || child.pid === undefined) return;
      const signalGroup = (sig: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, sig);
        } catch {
          /* already gone */
        }
      };
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  opts: { timeoutMs: number; intervalMs?: number; proc?: Proc },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let exitCode: number | null | undefined;
  void opts.proc?.exited.then((c) => (exitCode = c ?? -1));
  for (;;) {
    if (await check().catch(() => false)) return;
    if (exitCode !== undefined) {
      throw new Error(`${what} exited (code ${exitCode}) before becoming ready:\n${opts.proc?.tail.join('\n') ?? ''}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`${what} not ready after ${opts.timeoutMs / 1000} s:\n${opts.proc?.tail.join('\n') ?? ''}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 250));
  }
}

/**
 * The stack's fixed ports (55432 and up) lie in Linux's ephemeral range (32768–60999): an outgoing
 * connection of any process may hold one as its local port for a while, and a stack stopping
 * beside this one frees its sockets late. A service that exits at start because its port is
 * taken is started again after 1, 2 and 4 s, as PostgreSQL's own hint says; a port held for good
 * (another program listening on it) still fails the start, after about 7 s.
 */
const PORT_TAKEN = /address already in use|EADDRINUSE/i;
export const PORT_TAKEN_ATTEMPTS = 4;

/** Starts a service and waits until it is ready; `started` holds its live process meanwhile. */
export async function startReady(
  svc: { name: string; start(): Proc; ready(): Promise<boolean>; readyTimeoutMs: number },
  opts: { say: (line: string) => void; started: Proc[] },
): Promise<Proc> {
  for (let attempt = 1; ; attempt++) {
    const proc = svc.start();
    opts.started.push(proc);
    let exited = false;
    void proc.exited.then(() => (exited = true));
    try {
      await waitFor(svc.name, svc.ready, { timeoutMs: svc.readyTimeoutMs, proc });
      return proc;
    } catch (err) {
      if (!exited || attempt >= PORT_TAKEN_ATTEMPTS || !PORT_TAKEN.test(proc.tail.join('\n'))) throw err;
      opts.started.splice(opts.started.indexOf(proc), 1);
      const delay = restartDelayMs(attempt);
      opts.say(`${svc.name}: its port is taken; starting it again in ${(delay / 1000).toFixed(0)} s (attempt ${attempt + 1} of ${PORT_TAKEN_ATTEMPTS})`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

export async function httpOk(url: string, timeoutMs = 2000): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  await res.arrayBuffer().catch(() => undefined);
  return res.status < 500;
}

export function tcpOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return import('node:net').then(
    ({ createConnection }) =>
      new Promise<boolean>((resolve) => {
        const sock = createConnection({ host, port });
        const done = (ok: boolean) => {
          sock.destroy();
          resolve(ok);
        };
        sock.setTimeout(timeoutMs, () => done(false));
        sock.once('connect', () => done(true));
        sock.once('error', () => done(false));
      }),
  );
}

/** Delay before the n-th restart in a row (1-based): 1 s, 2 s, 4 s ... capped at 30 s. */
export function restartDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/** A process that ran this long before dying starts its backoff over. */
export const RESTART_STABLE_MS = 60_000;
