/**
 * What every area's service is built from (docs/architecture.md "Areas"): the process's store, how
 * a queued mail starts its delivery, the outside systems' addresses and the clock. Its own module so
 * each area's `service.ts` and `domain/services.ts` (which builds them all) share it without a cycle.
 */
import type { AiSettings } from './config';
import type { CfAccountSource } from './cfportal/rules';
import type { Store } from './db/store';
import type { SmtpTarget } from './mail/transport';

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
  /** The DWG conversion sidecar (default config.dwg.url). */
  dwgSidecarUrl?: string;
  /** The AI chat's providers: keys, models and addresses (default config.ai). */
  ai?: AiSettings;
  /** The land-registry portal (default config.landreg.baseUrl) and this process's rate on it (default config.landreg.requestsPerSecond). */
  landregBaseUrl?: string;
  landregRequestsPerSecond?: number;
  /** The SMTP server the notifications' mails go out through (default config.mail). */
  smtp?: SmtpTarget;
  /** The certificate portal's address (default config.cfportal.baseUrl). */
  cfportalBaseUrl?: string;
  /** Where the CF account in use is read from (default the shared slot and CFPORTAL_USERNAME; a test run has its own slot). */
  cfportalAccounts?: CfAccountSource;
}

/**
 * What a service asks of the job table (temporal/jobs.ts). Domain code cannot import the client
 * side of Temporal (dependencies point one way): the entry point passes these in.
 */
export interface AreaJobs {
  /** The running jobs that keep the portal session in use. */
  runningPortalJobs: () => Promise<readonly unknown[]>;
}

export interface AreaDeps {
  store: Store;
  mail: StartDelivery;
  outside: OutsideTargets;
  jobs: AreaJobs;
  clock: () => Date;
}
