/**
 * Issue 13, deliverable 5: old export archives and temporary files do not pile up. The exports
 * bucket carries an expiry rule (read back from the real MinIO), and the temporary directories a
 * killed process left behind are removed at start and by the hourly sweep of a process that keeps
 * running, while fresh ones and foreign files stay.
 */
import { afterAll, expect, test } from '@jest/globals';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetBucketLifecycleConfigurationCommand } from '@aws-sdk/client-s3';
import { config } from '../../domain/config';
import { EXPORT_EXPIRY_RULE_ID, ensureBuckets, ensureExportLifecycle, s3 } from '../../domain/storage/s3';
import { keepSweepingTempDirs, makeTempDir, sweepStaleTempDirs } from '../../domain/storage/tempDirs';

const root = await fs.mkdtemp(path.join(os.tmpdir(), 'housekeeping-'));
afterAll(() => fs.rm(root, { recursive: true, force: true }));

test('the exports bucket expires old archives: the rule reads back from the object store', async () => {
  await ensureBuckets();
  // A second call finds the rule in place and keeps it.
  await ensureExportLifecycle();
  const lc = await s3().send(new GetBucketLifecycleConfigurationCommand({ Bucket: config.s3.buckets.exports }));
  const rule = lc.Rules?.find((r) => r.ID === EXPORT_EXPIRY_RULE_ID);
  expect(rule).toMatchObject({ Status: 'Enabled', Expiration: { Days: config.exports.retentionDays } });
  expect(lc.Rules?.filter((r) => r.ID === EXPORT_EXPIRY_RULE_ID)).toHaveLength(1);
});

test('stale temporary directories are swept; fresh ones and foreign files stay', async () => {
  const stale = await makeTempDir('uat-export', root);
  await fs.writeFile(path.join(stale, 'parcele.csv'), 'x');
  const fresh = await makeTempDir('upload', root);
  const foreign = path.join(root, 'not-ours');
  await fs.mkdir(foreign);
  const old = new Date(Date.now() - 3 * 24 * 3_600_000);
  for (const p of [stale, foreign]) await fs.utimes(p, old, old);

  const removed = await sweepStaleTempDirs([root]);
  expect(removed).toEqual([stale]);
  expect((await fs.readdir(root)).sort()).toEqual([path.basename(fresh), 'not-ours'].sort());
});

test('a process that keeps running keeps sweeping: a directory that goes stale after its start is removed by a later sweep', async () => {
  const sweeps: string[][] = [];
  const stop = keepSweepingTempDirs((removed) => sweeps.push(removed), { roots: [root], everyMs: 100 });
  try {
    // Left behind after the process started (a killed sibling's build, say), stale by now.
    const late = await makeTempDir('selection-export', root);
    const old = new Date(Date.now() - 3 * 24 * 3_600_000);
    await fs.utimes(late, old, old);
    for (let i = 0; i < 50 && !sweeps.flat().includes(late); i++) await new Promise((r) => setTimeout(r, 50));
    expect(sweeps.flat()).toContain(late);
    await expect(fs.stat(late)).rejects.toThrow();
  } finally {
    stop();
  }
});
