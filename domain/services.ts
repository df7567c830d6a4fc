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
import { createCfportalService } from './cfportal/service';
import { createNotificationsService, createNotifier } from './notifications/service';
import { createOfficeService } from './office/service';
import { createRegistryService } from './registry/service';
import { createTagsService } from './tags/service';

export type { AreaDeps, OutsideTargets, StartDelivery };

export interface ServiceDeps {
  store: Store;
  mail: StartDelivery;
  outside?: OutsideTargets;
  clock?: () => Date;
}

export function createServices(deps: ServiceDeps) {
  const base: AreaDeps = { store: deps.store, mail: deps.mail, outside: deps.outside ?? {}, clock: deps.clock ?? (() => new Date()) };
  // The registry and the CF area notify and name users through the notifications, whose digest
  // reads them: their part of the notifications first, the whole service once they exist.
  const notifier = createNotifier(base);
  const registry = createRegistryService({ ...base, notifications: notifier });
  const cfportal = createCfportalService({ ...base, notifications: notifier });
  const notifications = createNotificationsService({ ...base, digest: { dueEntries: registry.dueEntries, expiringExtracts: cfportal.expiringExtracts } });
  const office = createOfficeService(base);
  const tags = createTagsService(base);
  return { notifications, registry, cfportal, office, tags };
}

export type Services = ReturnType<typeof createServices>;
