/** The land-registry portal area (spec 4.4): session, UAT catalogue, sync jobs, store views. */
import type { Router } from 'express';
import type { LandregService } from '../../domain/landreg/service';
import { registerLandregSessionRoutes } from './landregSession';
import { registerLandregSyncRoutes } from './landregSync';
import { registerLandregUatRoutes } from './landregUats';

export function registerLandregRoutes(router: Router, landreg: LandregService): void {
  registerLandregSessionRoutes(router, landreg);
  registerLandregUatRoutes(router, landreg);
  registerLandregSyncRoutes(router, landreg);
}
