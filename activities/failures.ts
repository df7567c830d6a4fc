/**
 * Domain failures → Temporal failures, one rule for every activity: a portal error is retried
 * when a retry can help (its `retryable`), a 4xx AppError (unknown UAT, bad input) never heals
 * by retrying; the failure type is the error's class name, or its contract code in the same shape
 * (temporal/common/retryPolicies.ts `failureTypeOf`), so the UI can name the cause.
 */
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../domain/errors';
import { PortalError } from '../domain/landreg/service';
import { failureTypeOf } from '../temporal/common/retryPolicies';

export async function withTemporalFailures<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PortalError) {
      const details = { status: err.status, code: err.code, hint: err.hint };
      throw err.retryable
        ? ApplicationFailure.retryable(err.message, err.name, details)
        : ApplicationFailure.nonRetryable(err.message, err.name, details);
    }
    if (err instanceof AppError && err.status < 500) {
      throw ApplicationFailure.nonRetryable(err.message, failureTypeOf(err.code), { status: err.status, code: err.code });
    }
    throw err;
  }
}
