/**
 * Heartbeats every few seconds while `fn` runs, so a workflow's short heartbeat timeout
 * (`KEPT_ALIVE`, temporal/common/heartbeat.ts) notices a dead worker (SIGKILL, OOM) quickly
 * without failing a slow but live call. `details()` is what the retry resumes from.
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

type Activities = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * Every activity of a group run under `keepAlive`. Only for activities that send no heartbeat
 * details of their own: its empty beats would overwrite the details a download or a batch
 * resumes from.
 */
export function keptAlive<T extends Activities>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [name, (...args: never[]) => keepAlive(() => fn(...args))]),
  ) as T;
}
