/**
 * CPU time of processes, for the benches that compare what a request costs each server (issue 45):
 * the scheduler's own nanoseconds on CPU of every thread (`/proc/<pid>/task/<tid>/schedstat`),
 * exact where `/proc/<pid>/stat`'s clock ticks (10 ms) are coarser than a pass.
 */
import fs from 'node:fs';
import { allPids, procStat } from '../../test/helpers/stackProcs';

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

/** A process and its direct children (a postmaster's backends, a cluster primary's web processes). */
export function withChildren(pids: readonly (number | undefined)[]): number[] {
  const roots = new Set(pids.filter((p): p is number => p !== undefined));
  const children = allPids().filter((pid) => roots.has(procStat(pid)?.ppid ?? 0));
  return [...roots, ...children];
}
