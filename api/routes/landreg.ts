/** The land-registry portal area (spec 4.4): session, UAT catalogue, sync jobs, store views, sync rules. */
import type { Router } from 'express';
import type { LandregService } from '../../domain/landreg/service';
import type { SchedulingService } from '../../domain/scheduling/service';
import { registerLandregSessionRoutes } from './landregSession';
import { registerLandregSyncRoutes } from './landregSync';
import { registerLandregUatRoutes } from './landregUats';
import { registerSchedulingRoutes } from './landregScheduling';

export function registerLandregRoutes(router: Router, landreg: LandregService, scheduling: SchedulingService): void {
  registerLandregSessionRoutes(router, landreg);
  registerLandregUatRoutes(router, landreg);
  registerLandregSyncRoutes(router, landreg);
  registerSchedulingRoutes(router, scheduling);
}
