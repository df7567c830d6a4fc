/**
 * Every area's door, built once per process (docs/architecture.md "Areas"). The entry points
 * (api/server.ts, workers/main.ts) call `createServices` with what the process holds (its store,
 * its mail delivery start, the clock, the outside systems' addresses) and hand each area its
 * service: the area's routes, its pages' loaders and actions (the Remix load context, api/web.ts)
 * and its activity factories (workers/registry.ts) all call the same object. A test builds its own
 * with the addresses of its simulators. Outside an area only its `service.ts` (and a pure
 * `rules.ts`) may be imported: dependency-cruiser's `area-door` rules (`.dependency-cruiser.cjs`).
 */
import type { AreaDeps, AreaJobs, OutsideTargets, StartDelivery } from './areaDeps';
import type { Store } from './db/store';
import { createCentralService } from './central/service';
import { createLandregService } from './landreg/service';
import { createNotificationsService } from './notifications/service';
import { createRegistryService } from './registry/service';
import { createSchedulingService } from './scheduling/service';

export type { AreaDeps, AreaJobs, OutsideTargets, StartDelivery };

export interface ServiceDeps {
  store: Store;
  mail: StartDelivery;
  outside?: OutsideTargets;
  jobs: AreaJobs;
  clock?: () => Date;
}

export function createServices(deps: ServiceDeps) {
  const base: AreaDeps = { store: deps.store, mail: deps.mail, outside: deps.outside ?? {}, jobs: deps.jobs, clock: deps.clock ?? (() => new Date()) };
  const notifications = createNotificationsService(base);
  const registry = createRegistryService({ ...base, notifications });
  const landreg = createLandregService({ ...base, notifications });
  const scheduling = createSchedulingService(base);
  const central = createCentralService(base);
  return { notifications, registry, landreg, scheduling, central };
}

export type Services = ReturnType<typeof createServices>;
