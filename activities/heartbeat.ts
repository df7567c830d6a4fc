/**
 * Heartbeats every few seconds while `fn` runs, so a workflow's short heartbeat timeout notices a
 * dead worker (SIGKILL, OOM) quickly without failing a slow but live portal call. `details()` is
 * what the retry resumes from.
 */
import { Context } from '@temporalio/activity';

const KEEP_ALIVE_MS = 5_000;
export async function keepAlive<T>(fn: () => Promise<T>, details: () => unknown = () => undefined): Promise<T> {
  const ctx = Context.current();
  const timer = setInterval(() => ctx.heartbeat(details()), KEEP_ALIVE_MS);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
