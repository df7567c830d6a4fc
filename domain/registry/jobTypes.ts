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
