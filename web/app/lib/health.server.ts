/** Server side of the health line: the same probes as GET /api/health, without an HTTP hop. */
import { infrastructureHealth } from '../../../api/system/health';
import type { HealthReport } from './health';

export async function loadHealth(): Promise<HealthReport> {
  return infrastructureHealth();
}
