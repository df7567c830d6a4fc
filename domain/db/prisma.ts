/**
 * Prisma client factory. The client is Rust-free (generator `prisma-client`) and talks to
 * PostgreSQL through @prisma/adapter-pg on the process's shared pg Pool, so Prisma and raw pg
 * work use one set of connections. Generated code lives in generated/prisma (gitignored):
 * run `PRISMA_SCHEMA_ENGINE_BINARY=/bin/true npx prisma generate` after a schema change.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { PrismaClient } from '../../generated/prisma/client';
import { getPool } from './pool';

export { Prisma, PrismaClient } from '../../generated/prisma/client';

let shared: PrismaClient | undefined;

/** A client on the given pool (tests, tools); the caller disconnects it and ends the pool. */
export function createPrisma(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/** The process-wide client on the shared pool (config.db.url). */
export function getPrisma(): PrismaClient {
  shared ??= createPrisma(getPool());
  return shared;
}

export async function disconnectPrisma(): Promise<void> {
  const p = shared;
  shared = undefined;
  if (p) await p.$disconnect();
}
