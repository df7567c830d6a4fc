/**
 * What the landreg routes talk to: the portal client and the store. Production uses the
 * process-wide defaults; an integration test points them at its own simulator and database (its
 * jobs go to its own Temporal namespace, test/helpers/temporal.ts, so no queue is aimed here).
 */
import type pg from 'pg';
import { getPool } from '../../domain/db/pool';
import { getLandregClient, type LandregClient } from '../../domain/landreg/client';

export interface LandregApiContext {
  client: () => LandregClient;
  db: () => pg.Pool;
}

export const landregApi: LandregApiContext = {
  client: getLandregClient,
  db: getPool,
};

export function configureLandregApi(overrides: Partial<LandregApiContext>): void {
  Object.assign(landregApi, overrides);
}
