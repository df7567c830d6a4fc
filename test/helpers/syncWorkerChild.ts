/**
 * Starts test/helpers/syncWorkerProcess.ts as a child process (one node process, no tsx
 * wrapper, so a signal reaches the worker itself) and resolves once its workers poll.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { config, projectRoot } from '../../domain/config';

export interface WorkerChild {
  proc: ChildProcess;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<number | NodeJS.Signals | null>;
  kill(signal: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

export async function startWorkerChild(opts: {
  simUrl: string;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Default store and landreg. */
  queues?: string[];
  cfportalUrl?: string;
}): Promise<WorkerChild> {
  const script = path.join(projectRoot, 'test/helpers/syncWorkerProcess.ts');
  const extra = [...(opts.queues ? ['--queues', opts.queues.join(',')] : []), ...(opts.cfportalUrl ? ['--cfportal', opts.cfportalUrl] : [])];
  const proc = spawn(process.execPath, ['--import', 'tsx', script, '--sim', opts.simUrl, ...extra], {
    cwd: projectRoot,
    // Jest's --experimental-vm-modules is of no use to the worker; the namespace is the test
    // file's own (test/helpers/temporal.ts testNamespace, which the caller's localEnv registered).
    env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', TEMPORAL_NAMESPACE: config.temporal.namespace, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => proc.once('exit', (code, signal) => resolve(signal ?? code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker child not ready: ${stderr}`)), opts.readyTimeoutMs ?? 60_000);
    proc.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`worker child exited (${how}) before ready: ${stderr}`));
    });
  });
  return {
    proc,
    exited,
    async kill(signal) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
