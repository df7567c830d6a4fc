/**
 * Row leases instead of locks held across outside calls (issue 13). A transaction or advisory
 * lock kept open while awaiting the portal, the identity provider or Temporal ties a pooled
 * connection (and every waiter's) to that outside party's latency, and the idle-in-transaction
 * timeout would cut it anyway. So the pattern is: read, claim a lease with ONE conditional
 * statement (it expires, so a dead holder blocks nobody for long), make the call with nothing
 * held, write the result back with a statement that only applies if it still makes sense, release.
 * Waiters poll the row; this module holds the polling loop they share.
 */
import { randomUUID } from 'node:crypto';

/** How often a waiter looks at a leased row again. */
export const LEASE_POLL_MS = 100;

/** A fresh lease holder id. */
export const leaseToken = (): string => randomUUID();

/**
 * Runs `round` until it answers something other than `undefined`, waiting `pollMs` between
 * rounds. A round either finds the work done (answers it), claims the lease and does the work
 * (answers the result), or finds the lease taken (answers undefined to wait).
 */
export async function untilSettled<T>(round: () => Promise<T | undefined>, pollMs = LEASE_POLL_MS): Promise<T> {
  for (;;) {
    const out = await round();
    if (out !== undefined) return out;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
