/**
 * What every area's service is built from (docs/architecture.md "Areas"): the process's store, how
 * a queued mail starts its delivery, the outside systems' addresses and the clock. Its own module so
 * each area's `service.ts` and `domain/services.ts` (which builds them all) share it without a cycle.
 */
import type { Store } from './db/store';

/**
 * Starts one outbox row's delivery now; null leaves every row to the outbox sweep. Domain code
 * cannot start workflows (dependencies point one way): the entry point passes temporal/mail.ts
 * `mailDelivery` in.
 */
export type StartDelivery = ((outboxId: string) => Promise<void>) | null;

/** The addresses of the outside systems; each defaults to its setting in config (tests aim at their own simulators). */
export interface OutsideTargets {
  /** The status authority of the registry's checks (default config.statusAuthority.baseUrl). */
  statusAuthorityUrl?: string;
  /** The land-registry portal of the enrichment (default config.landreg): its address and this process's request rate. */
  landreg?: { baseUrl?: string; requestsPerSecond?: number };
}

export interface AreaDeps {
  store: Store;
  mail: StartDelivery;
  outside: OutsideTargets;
  clock: () => Date;
}
