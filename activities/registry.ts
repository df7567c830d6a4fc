/**
 * Activities of the registry (store queue): the status authority checks (docs/registry.md).
 * Each is one call into domain/registry; the workflow sends the notifications through the
 * notifications queue's `notify` activity.
 */
import { config } from '../domain/config';
import type { Db } from '../domain/db/pool';
import type { PrismaClient } from '../domain/db/prisma';
import { checkEntryStatus, monitoredEntryIds, type StatusCheckResult } from '../domain/registry/statusCheck';

export interface RegistryActivityDeps {
  prisma: PrismaClient;
  /** The store's pool: the status authority's shared rate schedule. */
  db: Db;
  /** Status authority base URL; default config.statusAuthority.baseUrl (tests aim at their own simulator). */
  statusAuthorityUrl?: string;
}

export function createRegistryActivities({ prisma, db, statusAuthorityUrl }: RegistryActivityDeps) {
  const target = { baseUrl: statusAuthorityUrl ?? config.statusAuthority.baseUrl, timeoutMs: config.statusAuthority.timeoutMs };
  return {
    async listMonitoredRegistryEntries(): Promise<string[]> {
      return monitoredEntryIds(prisma);
    },
    async checkRegistryEntryStatus(entryId: string): Promise<StatusCheckResult> {
      return checkEntryStatus(prisma, db, entryId, target);
    },
  };
}

export type RegistryActivities = ReturnType<typeof createRegistryActivities>;
