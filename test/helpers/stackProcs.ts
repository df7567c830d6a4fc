/** Processes of this clone's local stack, found by their entry file (never another clone's). */
import { execFileSync } from 'node:child_process';

/** The node processes (the tsx wrapper and its child) running `entry`, an absolute path. */
export function pidsRunning(entry: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes(entry) && /\bnode\b/.test(l.split(' ')[1] ?? ''))
    .map((l) => Number(l.split(' ')[0]));
}
