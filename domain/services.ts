/**
 * Every area's door, built once per process (docs/architecture.md "Areas"). The entry points
 * (api/server.ts, workers/main.ts) build them through temporal/services.ts `processServices`, which
 * passes what the process holds (its store, its mail delivery start, its running-job reader, the
 * outside systems' addresses), and hand each area its
 * service: the area's routes, its pages' loaders and actions (the Remix load context, api/web.ts)
 * and its activity factories (workers/registry.ts) all call the same object. A test builds its own
 * with the addresses of its simulators. Outside an area only its `service.ts`, a pure `rules.ts`
 * and `jobTypes.ts` may be imported: dependency-cruiser's `area-door` rules (`.dependency-cruiser.cjs`).
 */
import type { AreaDeps, AreaJobs, OutsideTargets, StartDelivery } from './areaDeps';
import type { Store } from './db/store';
import { createAiService } from './ai/service';
import { createAuthService } from './auth/service';
import { createBackupService } from './backup/service';
import { createCentralService } from './central/service';
import { createCfportalService } from './cfportal/service';
import { createDwgService } from './dwg/service';
import { createEnrichmentService } from './enrichment/service';
import { createExportsService } from './exports/service';
import { createGeoportalService } from './geoportal/service';
import { createLandregService } from './landreg/service';
import { createNotificationsService, createNotifier } from './notifications/service';
import { createOfficeService } from './office/service';
import { createOgcService } from './ogc/service';
import { createOutsideService } from './outside/service';
import { createPdfService } from './pdf/service';
import { createRegistryService } from './registry/service';
import { createSchedulingService } from './scheduling/service';
import { createStorageService } from './storage/service';
import { createTagsService } from './tags/service';
import { createTilesService } from './tiles/service';

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
  // The registry, the CF area, the landreg store and backups notify and name users through the
  // notifications, whose digest reads the registry and the CF area: their part of the
  // notifications first, the whole service once they exist.
  const notifier = createNotifier(base);
  const auth = createAuthService(base);
  const registry = createRegistryService({ ...base, notifications: notifier });
  const cfportal = createCfportalService({ ...base, notifications: notifier });
  const notifications = createNotificationsService({ ...base, digest: { dueEntries: registry.dueEntries, expiringExtracts: cfportal.expiringExtracts } });
  const landreg = createLandregService({ ...base, notifications: notifier });
  const scheduling = createSchedulingService(base);
  const central = createCentralService(base);
  const office = createOfficeService(base);
  const tags = createTagsService(base);
  const pdf = createPdfService(base);
  const dwg = createDwgService(base);
  const ai = createAiService({ ...base, registry });
  const backup = createBackupService({ ...base, notifications: notifier });
  const geoportal = createGeoportalService(base);
  const ogc = createOgcService(base);
  const exports = createExportsService({ ...base, notifications: notifier });
  const enrichment = createEnrichmentService(base);
  const tiles = createTilesService(base);
  const outside = createOutsideService();
  const storage = createStorageService();
  return { auth, notifications, registry, cfportal, landreg, scheduling, central, office, tags, pdf, dwg, ai, backup, geoportal, ogc, exports, enrichment, tiles, outside, storage };
}

export type Services = ReturnType<typeof createServices>;
