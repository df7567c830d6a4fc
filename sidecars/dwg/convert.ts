/**
 * Runs one DWG → DXF conversion in a child process (child.ts) under a memory limit and stops it
 * when it runs past the deadline or its caller leaves: WebAssembly that loops or traps on a
 * broken drawing takes down only that child, never the sidecar, and SIGKILL ends it whatever it
 * is doing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { config } from '../../domain/config';
import { HEAVY_CHILD_NICE, lowerPriority } from '../../domain/childProcess';
import type { ChildResult } from './child';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

/**
 * The child runs from source through tsx's loader, whoever forks it (the sidecar under tsx, a
 * test under jest). Liftoff only: V8 would otherwise spend ~8 s of CPU optimising the 9.5 MB
 * module in the background of every short-lived child (measured: 14 s → 1.5 s, small drawing).
 */
const CHILD_FLAGS = ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, '--liftoff-only'];

/** LibreDWG's WebAssembly memory maximum, which the child reserves up front. */
const WASM_RESERVATION_MB = 2048;

/** LibreDWG's DWG_ERR_CRITICAL: error bits from here up mean nothing usable was read. */
const CRITICAL = 128;

export type ConversionFailure = 'unreadable' | 'timeout' | 'crashed' | 'cancelled';

export class ConversionError extends Error {
  constructor(readonly kind: ConversionFailure, message: string, readonly code?: number) {
    super(message);
    this.name = 'ConversionError';
  }
}

export interface ConversionResult {
  /** LibreDWG's recoverable error bits (0 when the read was clean). */
  warnings: number;
}

export interface ConversionOptions {
  timeoutMs: number;
  /** Aborting kills the child at once (the caller went away). */
  signal?: AbortSignal;
  /** Called with the child as soon as it exists (tests check that a killed child is gone). */
  onSpawn?: (child: ChildProcess) => void;
}

export function convertDwgFile(input: string, output: string, opts: ConversionOptions): Promise<ConversionResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new ConversionError('cancelled', 'conversion cancelled: the caller went away'));
    // A memory limit on the child's data (heap and WebAssembly memory): an address-space limit
    // would refuse the WebAssembly module's reservation outright. prlimit execs node in place,
    // so the pid, the IPC channel and a SIGKILL all reach the conversion itself.
    // On Node 24 V8 reserves the module's whole declared WebAssembly maximum (2 GiB for LibreDWG)
    // as data at instantiation, so the cap is the JS heap's share on top of that reservation.
    const data = (config.limits.childMemoryMb + WASM_RESERVATION_MB) * 1024 * 1024;
    const child = spawn('prlimit', [`--data=${data}`, '--', process.execPath, ...CHILD_FLAGS, CHILD, input, output], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    lowerPriority(child.pid, HEAVY_CHILD_NICE);
    opts.onSpawn?.(child);
    let result: ChildResult | undefined;
    let timedOut = false;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-2000);
    });
    child.on('message', (m) => {
      result = m as ChildResult;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      child.kill('SIGKILL');
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new ConversionError('crashed', `conversion process failed to start: ${err.message}`));
    });
    child.on('exit', (exitCode, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (cancelled) {
        reject(new ConversionError('cancelled', 'conversion cancelled: the caller went away'));
      } else if (timedOut) {
        reject(new ConversionError('timeout', `conversion stopped after ${opts.timeoutMs} ms`));
      } else if (!result) {
        reject(new ConversionError('crashed', `conversion process ended (${signal ?? `code ${exitCode}`}) without an answer: ${stderr.trim().slice(-300)}`));
      } else if (!result.wrote || result.code < 0 || result.code >= CRITICAL) {
        reject(new ConversionError('unreadable', result.message ?? `LibreDWG error ${result.code}`, result.code));
      } else {
        resolve({ warnings: result.code });
      }
    });
  });
}
