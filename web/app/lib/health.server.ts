/** Server side of the health line: the same probes as GET /api/health, without an HTTP hop. */
import type { Store } from '../../../domain/db/store';
import { infrastructureHealth } from '../../../domain/health';
import { checkTemporal } from '../../../temporal/client';
import type { HealthReport } from './health';

export async function loadHealth(store: Store): Promise<HealthReport> {
  return infrastructureHealth(store.pool, checkTemporal);
}
