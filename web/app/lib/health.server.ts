/** Server side of the health line: the same probes as GET /api/health, without an HTTP hop. */
import { infrastructureHealth } from '../../../domain/health';
import { checkTemporal } from '../../../temporal/client';
import type { HealthReport } from './health';

export async function loadHealth(): Promise<HealthReport> {
  return infrastructureHealth(checkTemporal);
}
