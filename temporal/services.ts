/**
 * Every area's service on this process's client side of Temporal (domain/services.ts): a mail an
 * action queues starts its delivery (temporal/mail.ts `mailDelivery`) and the portal session sees
 * the running jobs (temporal/jobs.ts). The one way an entry point (api/server.ts, workers/main.ts,
 * a script) or a test builds them; `mail: null` leaves the mails to the outbox sweep.
 */
import type { Store } from '../domain/db/store';
import { createServices, type OutsideTargets, type Services, type StartDelivery } from '../domain/services';
import { portalStartRecords } from '../domain/landreg/service';
import { runningPortalJobs } from './jobs';
import { mailDelivery } from './mail';

export function processServices(store: Store, options: { outside?: OutsideTargets; mail?: StartDelivery } = {}): Services {
  // The running jobs as Temporal lists them, and those this store recorded a moment ago that its listing lacks.
  const starts = portalStartRecords(store.pool);
  return createServices({
    store,
    mail: options.mail === undefined ? mailDelivery : options.mail,
    outside: options.outside,
    jobs: { runningPortalJobs: () => runningPortalJobs(starts) },
  });
}
