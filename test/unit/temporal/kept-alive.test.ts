/**
 * keptAlive (activities/heartbeat.ts): every activity of a group heartbeats while it runs, so a
 * proxy's 20 s heartbeat timeout (KEPT_ALIVE) retries one whose worker died, and stops beating
 * when it ends; arguments, answers and failures pass through unchanged. And no workflow's
 * activity proxy goes without a heartbeat timeout, which would hold a dead worker's activity for
 * its whole start-to-close timeout.
 */
import { afterEach, expect, jest, test } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { keptAlive } from '../../../activities/heartbeat';
import { projectRoot } from '../../../domain/config';

afterEach(() => {
  jest.useRealTimers();
});

test('a kept-alive activity heartbeats every 5 s while it runs and stops when it ends', async () => {
  jest.useFakeTimers();
  const env = new MockActivityEnvironment();
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  let finish!: (v: string) => void;
  const group = keptAlive({
    async slow(n: number, s: string): Promise<string> {
      return `${n}${s}${await new Promise<string>((r) => (finish = r))}`;
    },
  });
  const running = env.run(group.slow, 7, 'x');
  await jest.advanceTimersByTimeAsync(4_000);
  expect(beats).toHaveLength(0);
  await jest.advanceTimersByTimeAsync(7_000);
  expect(beats).toHaveLength(2);
  finish('!');
  expect(await running).toBe('7x!');
  await jest.advanceTimersByTimeAsync(20_000);
  expect(beats).toHaveLength(2);
});

test('every activity of the group is kept, and a failure comes back as it was thrown', async () => {
  const group = keptAlive({
    async one(): Promise<number> {
      return 1;
    },
    async fails(): Promise<never> {
      throw new RangeError('nu');
    },
  });
  expect(Object.keys(group)).toEqual(['one', 'fails']);
  // The SDK logs an activity's failure; here it is the point of the test.
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  expect(await env.run(group.one)).toBe(1);
  await expect(env.run(group.fails)).rejects.toThrow(RangeError);
});

test('every activity proxy of every workflow has a heartbeat timeout', () => {
  const dir = path.join(projectRoot, 'workflows');
  const proxies = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => {
      const src = fs.readFileSync(path.join(dir, f), 'utf8');
      // Options spread from a constant of the file (cfOrders' `cfStep`) count as that constant's.
      const spread = (name: string) => new RegExp(`const ${name} = \\{[^}]*heartbeatTimeout`).test(src);
      return [...src.matchAll(/const (\w+) = proxyActivities<\w+>\((\{[\s\S]*?\})\);/g)].map((m) => ({
        proxy: `${f} ${m[1]}`,
        beats: /KEPT_ALIVE|heartbeatTimeout/.test(m[2]) || [...m[2].matchAll(/\.\.\.(\w+)/g)].some((s) => spread(s[1])),
      }));
    });
  expect(proxies.length).toBeGreaterThan(20);
  expect(proxies.filter((p) => !p.beats).map((p) => p.proxy)).toEqual([]);
});
