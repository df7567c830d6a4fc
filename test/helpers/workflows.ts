/** Workflows that exist only to exercise the test environments. */
import { sleep } from '@temporalio/workflow';

/** Sleeps three days of workflow time; returns how much workflow time passed. */
export async function sleepThreeDays(): Promise<number> {
  const started = Date.now();
  await sleep('3 days');
  return Date.now() - started;
}
