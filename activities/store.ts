/**
 * Activities of the `store` task queue: thin calls into domain code. They are built from their
 * dependencies (the areas' services) so a worker or a test decides which database they touch.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { AuthService } from '../domain/auth/service';
import { keptAlive } from './heartbeat';

export interface StoreActivityDeps {
  services: { auth: Pick<AuthService, 'deleteExpiredSessions'> };
}

/**
 * SQLSTATE class 42 (undefined table/column, syntax) means the schema is not what the code
 * expects, e.g. migrations not applied: retrying cannot help, so fail fast and visibly.
 */
function asSchemaFailure(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('42')) {
    return ApplicationFailure.nonRetryable(`${(err as Error).message} (SQLSTATE ${code})`, 'SchemaError');
  }
  return err;
}

export function createStoreActivities({ services: { auth } }: StoreActivityDeps) {
  return keptAlive({
    /** Deletes expired and idle app_sessions rows (sign-in's service); returns the count. */
    async purgeExpiredSessions(): Promise<number> {
      try {
        return await auth.deleteExpiredSessions();
      } catch (err) {
        throw asSchemaFailure(err);
      }
    },
  });
}

export type StoreActivities = ReturnType<typeof createStoreActivities>;
