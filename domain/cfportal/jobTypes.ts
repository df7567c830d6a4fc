/**
 * What the CF order jobs take and answer (workflows/cfOrders.ts): shared by the workflows and
 * their starter (api/routes/cfportal.ts through domain/jobWorkflows.ts).
 */

export interface CfOrderBatchInput {
  orderId: string;
  account: string;
  /** Pause between two status polls (config.cfportal.pollIntervalMs at order time). */
  pollIntervalMs: number;
  /** How long a sent submit may stay unlisted before an admin is asked to reconcile (config.cfportal.submitListingWaitMs). */
  listingWaitMs?: number;
}

export interface CfOrderBatchResult {
  orderId: string;
  portalOrderId: string | null;
  completed: number;
  reconciledSubmit: boolean;
}

export interface CfOrderQueueInput {
  account: string;
  /** Carried over by continueAsNew: batches signalled but not run yet, in order. */
  pending?: CfOrderBatchInput[];
  processed?: number;
}

