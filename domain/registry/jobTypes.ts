/** What the registry's jobs take and answer (domain/jobWorkflows.ts); types only, as every area's `jobTypes.ts`. */

/** What the status check job (workflows/registryStatusCheck.ts) answers. */
export interface RegistryStatusCheckResult {
  checked: number;
  changed: number;
  unchanged: number;
  baseline: number;
  errors: number;
  notified: number;
}

/** Set by the job itself when it continues as new (many tracked entries): the ids left, the tally and how many were done. */
export interface RegistryStatusCheckArgs {
  resume?: { ids: string[]; tally: RegistryStatusCheckResult; done: number };
  /** Entries a run checks before it continues as new (default 500; the routes and the schedule never set it). */
  entriesPerRun?: number;
}
