/**
 * Prisma 7 CLI configuration. Only `prisma generate` is used (offline, see docs/store.md):
 * migrations are plain SQL applied by domain/db/migrate.ts, never by the Prisma schema engine.
 * The datasource URL matters only to CLI commands that talk to the database (e.g. `prisma studio`).
 */
import { defineConfig } from 'prisma/config';
import { config } from './domain/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  datasource: { url: config.db.url },
});
