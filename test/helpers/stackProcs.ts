/** Processes a test looks at: this clone's stack processes (never another clone's), any pid's life. */
import { execFileSync } from 'node:child_process';

/** The node processes (the tsx wrapper and its child) running `entry`, an absolute path. */
export function pidsRunning(entry: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes(entry) && /\bnode\b/.test(l.split(' ')[1] ?? ''))
    .map((l) => Number(l.split(' ')[0]));
}

/** Whether a process with this pid exists (signal 0 checks without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
