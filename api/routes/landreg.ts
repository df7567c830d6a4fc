/** The land-registry portal area (spec 4.4): session, UAT catalogue, sync jobs, store views. */
import type { Router } from 'express';
import type { Store } from '../../domain/db/store';
import { landregApiOn, type LandregRouteOptions } from '../landreg/context';
import { registerLandregSessionRoutes } from './landregSession';
import { registerLandregSyncRoutes } from './landregSync';
import { registerLandregUatRoutes } from './landregUats';
import { registerSchedulingRoutes } from './landregScheduling';

export type { LandregRouteOptions };

export function registerLandregRoutes(router: Router, store: Store, opts: LandregRouteOptions = {}): void {
  const landregApi = landregApiOn(store, opts);
  registerLandregSessionRoutes(router, landregApi);
  registerLandregUatRoutes(router, landregApi);
  registerLandregSyncRoutes(router, landregApi);
  registerSchedulingRoutes(router, store);
}
