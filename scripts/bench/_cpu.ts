/**
 * CPU time of processes, for the benches that compare what a request costs each server (issue 45):
 * the scheduler's own nanoseconds on CPU of every thread (`/proc/<pid>/task/<tid>/schedstat`),
 * exact where `/proc/<pid>/stat`'s clock ticks (10 ms) are coarser than a pass.
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Nanoseconds on CPU of every thread of these processes (a process gone counts 0). */
export function cpuNs(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        total += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* the thread ended meanwhile */
      }
    }
  }
  return total;
}

/** The processes listening on this TCP port of this host (ss), empty when none. */
export function listenerPids(port: number): number[] {
  let out: string;
  try {
    out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return [...new Set([...out.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])))];
}

/** The direct children of a process (a postmaster's backends, a cluster primary's web processes). */
export function childPids(parent: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of stat, after the command in parentheses (which may itself hold spaces).
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** A process and its direct children. */
export const withChildren = (pids: readonly number[]) => [...new Set(pids.flatMap((p) => [p, ...childPids(p)]))];
