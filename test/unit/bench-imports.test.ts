/**
 * Every benchmark file loads under the loader `npm run bench` runs it with (issue 27): a broken
 * import fails `npm test` instead of stopping a bench run halfway (the CF benchmark once stopped
 * on a named import that Node's ESM loader cannot see in a CommonJS package). The check imports
 * each file without running it (scripts/bench/_link-check.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@jest/globals';
import { projectRoot } from '../../domain/config';

test('every file of scripts/bench/ links under tsx', () => {
  const benches = fs.readdirSync(path.join(projectRoot, 'scripts/bench')).filter((f) => f.endsWith('.ts') && !f.startsWith('_')).sort();
  const run = spawnSync(path.join(projectRoot, 'node_modules/.bin/tsx'), ['scripts/bench/_link-check.ts'], {
    cwd: projectRoot,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.stdout.trim().split('\n')).toEqual(benches.map((f) => `${f}: ok`));
  expect(run.status).toBe(0);
}, 150_000);
