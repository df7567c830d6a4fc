/**
 * Issue 14 (5): retry policies and the non-retryable failure list live in one module, and the
 * failure types there name errors that really exist, in one style, as activities/failures.ts
 * throws them.
 */
import { expect, it } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { withTemporalFailures } from '../../activities/failures';
import { projectRoot } from '../../domain/config';
import { errors } from '../../domain/errors';
import { PortalCredentialsError, PortalMalformedError } from '../../domain/landreg/errors';
import { CfPortalCredentialsError, CfPortalRejectedError } from '../../domain/cfportal/client';
import { BatchNotFoundError, InsufficientCreditsError } from '../../domain/cfportal/pipeline';
import { CFPORTAL_PERMANENT_FAILURES, PORTAL_PERMANENT_FAILURES, RETRY, failureTypeOf } from '../../temporal/common/retryPolicies';

it('turns a contract code into the failure-type style', () => {
  expect(failureTypeOf('not_found')).toBe('NotFoundError');
  expect(failureTypeOf('bad_request')).toBe('BadRequestError');
  expect(failureTypeOf('insufficient_credits')).toBe('InsufficientCreditsError');
  expect(failureTypeOf('SchemaError')).toBe('SchemaError');
});

it('every non-retryable type is PascalCase ending in Error, and the domain classes carry those names', () => {
  const all = new Set(Object.values(RETRY).flatMap((p) => ('nonRetryableErrorTypes' in p ? p.nonRetryableErrorTypes : [])));
  for (const t of all) expect(t).toMatch(/^[A-Z][A-Za-z]+Error$/);
  for (const E of [PortalCredentialsError, PortalMalformedError]) expect(PORTAL_PERMANENT_FAILURES).toContain(E.name);
  for (const E of [CfPortalCredentialsError, CfPortalRejectedError, BatchNotFoundError, InsufficientCreditsError])
    expect(CFPORTAL_PERMANENT_FAILURES).toContain(E.name);
});

it('an AppError leaves an activity as a non-retryable failure of the listed type', async () => {
  const thrown = await withTemporalFailures(() => Promise.reject(errors.notFound())).catch((e: unknown) => e);
  expect(thrown).toBeInstanceOf(ApplicationFailure);
  expect((thrown as ApplicationFailure).type).toBe('NotFoundError');
  expect((thrown as ApplicationFailure).nonRetryable).toBe(true);
  expect(RETRY.store.nonRetryableErrorTypes).toContain((thrown as ApplicationFailure).type);
});

it('no workflow declares a retry policy of its own, and the failure types thrown by hand keep the style', () => {
  const dir = path.join(projectRoot, 'workflows');
  const offenders = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => /retry:\s*\{|maximumAttempts|nonRetryableErrorTypes/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
  expect(offenders).toEqual([]);
  const sources = ['workflows', 'activities'].flatMap((d) =>
    fs
      .readdirSync(path.join(projectRoot, d))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(projectRoot, d, f))
  );
  const types = sources.flatMap((f) =>
    [...fs.readFileSync(f, 'utf8').matchAll(/ApplicationFailure\.(?:nonRetryable|retryable|create)\([^;]*?,\s*'([^']+)'/gs)].map((m) => m[1])
  );
  expect(types.length).toBeGreaterThan(0);
  for (const t of types) expect(t).toMatch(/^[A-Z][A-Za-z]+Error$/);
});
