/** Server side of the health line: the same probes as GET /api/health, without an HTTP hop. */
import type { Store } from '../../../domain/db/store';
import { infrastructureHealth } from '../../../domain/health';
import { checkTemporal } from '../../../temporal/client';
import type { HealthReport } from './health';

/** `isAdmin`: a failing part's own error text is shown to administrators only (domain/health.ts). */
export async function loadHealth(store: Store, isAdmin: boolean): Promise<HealthReport> {
  return infrastructureHealth(store.pool, checkTemporal, { technical: isAdmin });
}
