/**
 * Processes a test or a bench looks at: this clone's stack processes (never another clone's), any
 * pid's life, name and parent, and who listens on a port, from /proc.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

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

/** Every pid in /proc now. */
export function allPids(): number[] {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

/**
 * A process's name and parent from /proc/<pid>/stat (undefined when it is gone). Unlike its command
 * line, stat does not take the process's memory-map lock, which a busy process can hold for seconds.
 */
export function procStat(pid: number): { name: string; ppid: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The name is in parentheses and may hold spaces; the parent is the second field after it.
  const close = text.lastIndexOf(')');
  return { name: text.slice(text.indexOf('(') + 1, close), ppid: Number(text.slice(close + 2).split(' ')[1]) };
}

/** The process holding a listening TCP socket on `port` (IPv4 or IPv6). */
export function listenerOf(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; the inode is the tenth field.
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1].split(':')[1], 16) === port) inodes.add(f[9]);
    }
  }
  for (const pid of allPids()) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1])) return pid;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return undefined;
}
