/**
 * Every activity retry policy of the project, declared once (issue 14, deliverable 5), and the
 * failure types no retry can heal. Pure (no Node imports), so workflow code imports it directly.
 *
 * Failure types are the `type` of an ApplicationFailure, in one style: PascalCase ending in
 * `Error`, the domain error's class name (`PortalCredentialsError`) or, for an AppError, its
 * contract code turned into that shape by `failureTypeOf` (`not_found` → `NotFoundError`).
 * activities/failures.ts throws them non-retryable already; the lists below say so again in the
 * policy, so a failure thrown past that helper still stops at once.
 */
import type { RetryPolicy } from '@temporalio/common';

/** `not_found` → `NotFoundError`: the failure type of an AppError with that contract code. */
export function failureTypeOf(code: string): string {
  const pascal = code
    .split(/[_\-\s]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  return pascal.endsWith('Error') ? pascal : `${pascal}Error`;
}

/** Bad input and missing rows: the same call fails the same way however often it is made. */
const PERMANENT = ['BadRequestError', 'NotFoundError', 'SchemaError'];

/** The land-registry portal refused our account or answered something we cannot read. */
export const PORTAL_PERMANENT_FAILURES = ['PortalCredentialsError', 'PortalMalformedError', ...PERMANENT];

/** The certificate portal: refused account or order, no credit, a batch that is gone. */
export const CFPORTAL_PERMANENT_FAILURES = [
  'CfPortalCredentialsError',
  'CfPortalRejectedError',
  'InsufficientCreditsError',
  'BatchNotFoundError',
  ...PERMANENT,
];

export const RETRY = {
  /** Short database work (store queue): a restart or a lock timeout heals within a minute. */
  store: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: PERMANENT,
  },
  /** Paged portal calls (landreg queue, heartbeating from their page cursor): ride out a portal hiccup. */
  portal: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 12,
    nonRetryableErrorTypes: PORTAL_PERMANENT_FAILURES,
  },
  /** Long portal scans (enrichment batches, the no-geometry import): fewer, farther-apart attempts. */
  portalLong: {
    initialInterval: '10 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 8,
    nonRetryableErrorTypes: PORTAL_PERMANENT_FAILURES,
  },
  /** CF order steps: each attempt keeps what earlier ones did (labelled cart items, stored PDFs), so short waits. */
  cfportalStep: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 30,
    nonRetryableErrorTypes: CFPORTAL_PERMANENT_FAILURES,
  },
  /** The CF submit reconciles with the portal's orders before submitting, so a retry never pays twice. */
  cfportalSubmit: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 30,
    nonRetryableErrorTypes: CFPORTAL_PERMANENT_FAILURES,
  },
  /** Notification rows: a notification must not be lost to a short outage. */
  notify: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 20,
    nonRetryableErrorTypes: PERMANENT,
  },
  /** SMTP delivery: bounded by the proxy's scheduleToCloseTimeout; the cap keeps the wait after recovery short. */
  mail: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    nonRetryableErrorTypes: PERMANENT,
  },
  /** CPU- and disk-heavy builds that start over on a retry (exports, tile archives). */
  build: {
    initialInterval: '10 seconds',
    backoffCoefficient: 2,
    maximumInterval: '2 minutes',
    maximumAttempts: 3,
    nonRetryableErrorTypes: PERMANENT,
  },
  /** Periodic chores (housekeeping, status checks, digests, webhooks): the next run tries again anyway. */
  periodic: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [...PERMANENT, 'WebhookRejectedError'],
  },
  /** Probes whose answer is the point (portal health): a failure is the result, not something to retry. */
  once: { maximumAttempts: 1 },
} satisfies Record<string, RetryPolicy>;
