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
import { createAiService } from './ai/service';
import { createAuthService } from './auth/service';
import { createBackupService } from './backup/service';
import { createDwgService } from './dwg/service';
import { createCentralService } from './central/service';
import { createLandregService } from './landreg/service';
import { createNotificationsService } from './notifications/service';
import { createPdfService } from './pdf/service';
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
  const auth = createAuthService(base);
  const notifications = createNotificationsService(base);
  const registry = createRegistryService({ ...base, notifications });
  const pdf = createPdfService(base);
  const dwg = createDwgService(base);
  const ai = createAiService({ ...base, registry });
  const backup = createBackupService({ ...base, notifications });
  const landreg = createLandregService({ ...base, notifications });
  const scheduling = createSchedulingService(base);
  const central = createCentralService(base);
  return { auth, notifications, registry, pdf, dwg, ai, backup, landreg, scheduling, central };
}

export type Services = ReturnType<typeof createServices>;
