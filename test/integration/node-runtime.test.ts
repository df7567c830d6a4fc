/**
 * One supported Node.js for everything (issue 27): the test runner and every node process of the
 * running stack — the launcher, each tsx wrapper, the web process, the workers, the simulators,
 * MailDev and the DWG sidecar — run on the major of `.node-version`. Each process is found by
 * what it serves (the process listening on its port) or by its place under the launcher, and
 * asked for its version through its own executable (/proc/<pid>/exe --version), so a process
 * started with the system's Node fails here whatever its PATH said.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../domain/config';
import { appServices, services } from '../../scripts/stack/services';
import { NODE_VERSION, nodeMajor } from '../../scripts/stack/runtime';
import { allPids, listenerOf, procStat } from '../helpers/stackProcs';

/** Services of the stack that are not node programs (Go and C servers). */
const NATIVE = new Set(['postgres', 'temporal', 'minio', 'tilegate']);

const readProc = (pid: number, file: string) => fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
const cmdline = (pid: number) => readProc(pid, 'cmdline').split('\0').filter(Boolean).join(' ');
const parentOf = (pid: number) => procStat(pid)?.ppid ?? 0;
const isNode = (pid: number) => {
  try {
    return /^node/.test(path.basename(fs.readlinkSync(`/proc/${pid}/exe`)));
  } catch {
    return false; // exited since the listing
  }
};
const versionOf = (pid: number) => execFileSync(`/proc/${pid}/exe`, ['--version'], { encoding: 'utf8' }).trim();

/** The outermost process of the launcher (`tsx scripts/stack.ts`) above `pid`. */
function launcherAbove(pid: number): number | undefined {
  let found: number | undefined;
  for (let p = pid; p > 1; p = parentOf(p)) if (cmdline(p).includes('scripts/stack.ts')) found = p;
  return found;
}

function descendantsOf(root: number): number[] {
  const parent = new Map<number, number>();
  for (const pid of allPids()) {
    try {
      parent.set(pid, parentOf(pid));
    } catch {
      /* gone */
    }
  }
  const under = (pid: number): boolean => pid === root || (pid > 1 && parent.has(pid) && under(parent.get(pid)!));
  return [...parent.keys()].filter(under);
}

const portOf = (url: string) => Number(new URL(url).port);
const expectedMajor = nodeMajor(NODE_VERSION);

describe(`every process runs on Node.js ${expectedMajor} (.node-version ${NODE_VERSION})`, () => {
  test('the test runner', () => {
    expect(nodeMajor(process.version)).toBe(expectedMajor);
  });

  test('every node process of the stack: launcher, web, workers, simulators, MailDev, sidecar', async () => {
    const nodeServices = [...services(), ...appServices()].filter((s) => s.embedded && !NATIVE.has(s.name));
    const listeners = new Map<string, number | undefined>();
    for (const s of nodeServices) if (s.url) listeners.set(s.name, listenerOf(portOf(s.url)));
    // Every service that serves a port is up and is a node process.
    expect([...listeners].filter(([, pid]) => pid === undefined || !isNode(pid)).map(([name]) => name)).toEqual([]);

    const launcher = launcherAbove(listeners.get('app')!);
    expect(launcher).toBeDefined();
    const hasWorkers = (pids: number[]) => pids.some((pid) => isNode(pid) && cmdline(pid).includes('workers/main.ts'));
    // The launcher's restart test, which kills the workers on purpose, runs alone after the rest (scripts/test.sh).
    const tree = descendantsOf(launcher!).filter(isNode);
    // Not vacuous: the tree holds the launcher, the workers and every listener found above.
    expect(hasWorkers(tree)).toBe(true);
    expect([...listeners.values()].filter((pid) => !tree.includes(pid!))).toEqual([]);

    const elsewhere = tree.map((pid) => `${versionOf(pid)} ${cmdline(pid)}`).filter((v) => nodeMajor(v) !== expectedMajor);
    expect(elsewhere).toEqual([]);
  }, 120_000);

  test('the Docker image and package.json engines name the same major', () => {
    const dockerfile = fs.readFileSync(path.join(projectRoot, 'Dockerfile'), 'utf8');
    expect(/^FROM node:(\d+)/m.exec(dockerfile)?.[1]).toBe(String(expectedMajor));
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toMatch(new RegExp(`^\\^${expectedMajor}\\.`));
  });
});
