/**
 * The shared portal session as clients see it (`GET /api/landreg/session`, CONTRACT.md section 4):
 * one definition for the route and for the pages that render it server-side.
 */
import { z } from 'zod';
import { readPortalSession } from '../../domain/landreg/sessionStore';
import { landregApi } from './context';
import { runningPortalJobs } from '../../temporal/jobs';

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

export async function sessionState(): Promise<SessionState> {
  const [s, jobs] = await Promise.all([readPortalSession(landregApi.db()), runningPortalJobs().catch(() => [])]);
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
