/**
 * Every area's door, built once per process (docs/architecture.md "Areas"). The entry points
 * (api/server.ts, workers/main.ts) call `createServices` with what the process holds (its store,
 * its mail delivery start, the clock, the outside systems' addresses) and hand each area its
 * service: the area's routes, its pages' loaders and actions (the Remix load context, api/web.ts)
 * and its activity factories (workers/registry.ts) all call the same object. A test builds its own
 * with the addresses of its simulators. Outside an area only its `service.ts` (and a pure
 * `rules.ts`) may be imported: dependency-cruiser's `area-door` rules (`.dependency-cruiser.cjs`).
 */
import type { AreaDeps, OutsideTargets, StartDelivery } from './areaDeps';
import type { Store } from './db/store';
import { createEnrichmentService } from './enrichment/service';
import { createExportsService } from './exports/service';
import { createGeoportalService } from './geoportal/service';
import { createNotificationsService } from './notifications/service';
import { createOgcService } from './ogc/service';
import { createRegistryService } from './registry/service';
import { createTilesService } from './tiles/service';

export type { AreaDeps, OutsideTargets, StartDelivery };

export interface ServiceDeps {
  store: Store;
  mail: StartDelivery;
  outside?: OutsideTargets;
  clock?: () => Date;
}

export function createServices(deps: ServiceDeps) {
  const base: AreaDeps = { store: deps.store, mail: deps.mail, outside: deps.outside ?? {}, clock: deps.clock ?? (() => new Date()) };
  const notifications = createNotificationsService(base);
  const registry = createRegistryService({ ...base, notifications });
  const geoportal = createGeoportalService(base);
  const ogc = createOgcService(base);
  const exports = createExportsService({ ...base, notifications });
  const enrichment = createEnrichmentService(base);
  const tiles = createTilesService(base);
  return { notifications, registry, geoportal, ogc, exports, enrichment, tiles };
}

export type Services = ReturnType<typeof createServices>;
