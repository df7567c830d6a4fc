/**
 * The one way the service runs a tool as a child process on a request's or a job's behalf
 * (Ghostscript, qpdf, ogr2ogr): under a memory limit (`prlimit`), in a process group of its own,
 * killed with its whole group (SIGKILL) at its deadline or as soon as `signal` aborts (the client
 * went away, the activity was cancelled), so nothing outlives the work that started it.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { config } from './config';

export interface ToolRun {
  /** Exit code; null when killed. */
  code: number | null;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
}

export interface ToolOptions {
  timeoutMs: number;
  /** Memory limit in MB (default config.limits.childMemoryMb). */
  memoryMb?: number;
  /**
   * What the limit bounds: the address space (`as`, the default), or the heap and anonymous
   * mappings (`data`) for tools that map far more than they use (GDAL maps every driver and PROJ's
   * database, so an address-space cap would refuse it long before it allocates anything).
   */
  memoryKind?: 'as' | 'data';
  /** The child's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Niceness of the child (default HEAVY_CHILD_NICE; 0 = as this process). */
  nice?: number;
  signal?: AbortSignal;
  /** Reports the pid of the process group leader (tests check the group is gone). */
  onSpawn?: (pid: number) => void;
}

export class ToolStartError extends Error {
  constructor(bin: string, cause: Error) {
    super(`${path.basename(bin)} failed to start: ${cause.message}`);
    this.name = 'ToolStartError';
  }
}

const STDERR_KEEP = 64 * 1024;

/**
 * Niceness of a heavy child by default: on two cores one admitted compression or conversion took a
 * core, and the colleagues' tiles and searches waited behind it (docs/operations.md "Fairness
 * bench"); the web process keeps the scheduler's preference and the tool gets what is left.
 */
export const HEAVY_CHILD_NICE = 10;

/** Lowers a child's CPU priority; a priority is only a hint, so a refusal is ignored. */
export function lowerPriority(pid: number | undefined, nice: number): void {
  if (!pid || !nice) return;
  try {
    os.setPriority(pid, nice);
  } catch {
    // The process may already have ended, or the platform refuses.
  }
}

/** A run's timeout: `baseMs` plus `msPerMb` per MB of input, never above `ceilingMs`. */
export function timeoutForInput(bytes: number, baseMs: number, msPerMb: number, ceilingMs: number): number {
  return Math.min(ceilingMs, Math.round(baseMs + (bytes / (1024 * 1024)) * msPerMb));
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function runTool(bin: string, args: string[], opts: ToolOptions): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return resolve({ code: null, stderr: '', timedOut: false, aborted: true });
    const bytes = (opts.memoryMb ?? config.limits.childMemoryMb) * 1024 * 1024;
    // prlimit execs the tool in place: same pid, same process group.
    const child = spawn('prlimit', [`--${opts.memoryKind ?? 'as'}=${bytes}`, '--', bin, ...args], {
      detached: true,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    lowerPriority(child.pid, opts.nice ?? HEAVY_CHILD_NICE);
    let stderr = '';
    let timedOut = false;
    let aborted = false;
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-STDERR_KEEP);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, opts.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup(child.pid);
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (child.pid) opts.onSpawn?.(child.pid);
    const done = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (err) => {
      done();
      reject(new ToolStartError(bin, err));
    });
    child.once('close', (code) => {
      done();
      // A helper the tool started may still hold the group: it goes with the tool.
      killGroup(child.pid);
      resolve({ code, stderr, timedOut, aborted });
    });
  });
}
