/** The land-registry portal area (spec 4.4): session, UAT catalogue, sync jobs, store views. */
import type { Router } from 'express';
import { registerLandregSessionRoutes } from './landregSession';
import { registerLandregSyncRoutes } from './landregSync';
import { registerLandregUatRoutes } from './landregUats';
import { registerSchedulingRoutes } from './landregScheduling';

export function registerLandregRoutes(router: Router): void {
  registerLandregSessionRoutes(router);
  registerLandregUatRoutes(router);
  registerLandregSyncRoutes(router);
  registerSchedulingRoutes(router);
}
