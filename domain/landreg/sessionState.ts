/**
 * The shared portal session as clients see it (`GET /api/landreg/session`, CONTRACT.md section 4):
 * one definition for the route and for the pages that render it server-side. What it reads is
 * passed in: the store, and the running portal jobs (temporal/jobs.ts `runningPortalJobs`, a
 * client-side call this layer does not import).
 */
import { z } from 'zod';
import type { Db } from '../db/pool';
import { readPortalSession } from './sessionStore';

export const SessionState = z.object({
  connected: z.boolean(),
  username: z.string().optional(),
  connectedAt: z.string().optional(),
  runningJobs: z.number().int(),
  portalAvailable: z.boolean(),
  portalMaintenance: z.boolean(),
  lastHealthCheckAt: z.string().optional(),
  consecutiveFailures: z.number().int(),
});
export type SessionState = z.infer<typeof SessionState>;

export interface SessionStateSources {
  db: Db;
  /** The running jobs that keep the portal session in use, as Temporal sees them. */
  runningPortalJobs: () => Promise<readonly unknown[]>;
}

export async function sessionState({ db, runningPortalJobs }: SessionStateSources): Promise<SessionState> {
  // The session shows even while Temporal is unreachable: then no job is known to run.
  const [s, jobs] = await Promise.all([readPortalSession(db), runningPortalJobs().catch(() => [])]);
  return {
    connected: s.cookie !== null,
    ...(s.cookie && s.username ? { username: s.username } : {}),
    ...(s.cookie && s.connectedAt ? { connectedAt: s.connectedAt.toISOString() } : {}),
    runningJobs: jobs.length,
    portalAvailable: s.portalAvailable,
    portalMaintenance: s.portalMaintenance,
    ...(s.lastHealthCheckAt ? { lastHealthCheckAt: s.lastHealthCheckAt.toISOString() } : {}),
    consecutiveFailures: s.consecutiveFailures,
  };
}
