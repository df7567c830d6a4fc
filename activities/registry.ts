/**
 * Activities of the registry (store queue): the status authority checks (docs/registry.md), each
 * one call of the registry's service. The workflow sends the notifications through the
 * notifications queue's `notify` activity.
 */
import type { RegistryService, StatusCheckResult } from '../domain/registry/service';
import { keptAlive } from './heartbeat';

export function createRegistryActivities({ registry }: { registry: RegistryService }) {
  return keptAlive({
    async listMonitoredRegistryEntries(): Promise<string[]> {
      return registry.monitoredEntryIds();
    },
    async checkRegistryEntryStatus(entryId: string): Promise<StatusCheckResult> {
      return registry.checkEntryStatus(entryId);
    },
  });
}

export type RegistryActivities = ReturnType<typeof createRegistryActivities>;
