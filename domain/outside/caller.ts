/**
 * Who an outside call serves. The API sets it around a request's outside work
 * (`api/http/deadline.ts` `withinDeadline`); every client of `domain/outside/call.ts` reads it, so
 * a call is counted as its user's in the fair rate limiter and stopped, queued or in flight, when
 * the request's deadline passes or its client leaves. Calls without a caller (workflow
 * activities, schedules) share one background lane; inside an activity they stop when Temporal
 * cancels it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { asyncLocalStorage as activityContext } from '@temporalio/activity';
import type { Caller } from '../concurrency';

// The caller's signal aborts at the request's deadline or when its client leaves: queued and
// running calls stop.
const callerContext = new AsyncLocalStorage<Caller>();

/**
 * Runs `fn` with its outside calls counted as `caller`'s and stopped by its signal: a piece of
 * work (the door's), or an Express `next`, so that every route under a middleware has a caller.
 */
export function withOutsideCaller<T>(caller: Caller, fn: () => T): T {
  return callerContext.run(caller, fn);
}

export function currentOutsideCaller(): Caller | undefined {
  return callerContext.getStore();
}

/**
 * True inside a Temporal activity: Temporal retries the activity under its named policy
 * (temporal/common/retryPolicies.ts), so a retry of ours would multiply its attempts.
 */
export function insideActivity(): boolean {
  return activityContext.getStore() !== undefined;
}

/** What stops an outside call besides its own timeout: the caller leaving, the activity cancelled. */
export function callerSignals(): AbortSignal[] {
  const out: AbortSignal[] = [];
  const caller = currentOutsideCaller()?.signal;
  if (caller) out.push(caller);
  const activity = activityContext.getStore();
  if (activity) out.push(activity.cancellationSignal);
  return out;
}
