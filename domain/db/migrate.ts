/**
 * Applies the store schema: extensions, then the ordered SQL files of prisma/migrations
 * (postgrator naming `NNN.do.<name>.sql`, recorded in table `schemaversion`), then the derived
 * objects of domain/store/views.ts (tile views, UAT zoom trigger), which are re-applied only when
 * their SQL changed. Safe to run from several processes at once: one advisory lock serialises it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';
import { ensureDerivedObjects } from '../store/views';

export const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../prisma/migrations');

const EXTENSIONS = ['postgis', 'pg_trgm', 'unaccent'] as const;

export type MigrateResult = {
  /** Migration files applied by this call, e.g. `001.do.core-store.sql`; empty when up to date. */
  applied: string[];
  /** Derived objects (views, trigger) (re)created by this call; empty when current. */
  derived: string[];
};

export async function migrate(databaseUrl: string): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'geoportal-migrate' });
  await client.connect();
  try {
    // Quiet: PostgreSQL NOTICEs ("extension already exists, skipping") are not our output.
    client.on('notice', () => undefined);
    await client.query(`SELECT pg_advisory_lock(hashtext('geoportal:migrate'))`);
    for (const ext of EXTENSIONS) await client.query(`CREATE EXTENSION IF NOT EXISTS ${ext} WITH SCHEMA public`);

    const postgrator = new Postgrator({
      migrationPattern: path.join(migrationsDir, '*.do.*.sql'),
      driver: 'pg',
      schemaTable: 'schemaversion',
      validateChecksums: true,
      execQuery: (query) => client.query(query),
      // Each file runs in one transaction, so a failing migration leaves nothing half-applied
      // (hence no CREATE INDEX CONCURRENTLY or explicit BEGIN/COMMIT inside a migration file).
      execSqlScript: async (sql) => {
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
      },
    });
    const ran = await postgrator.migrate();
    const applied = ran.map((m) => m.filename.split(path.sep).pop() ?? m.filename);

    const derived = await ensureDerivedObjects(client);
    return { applied, derived };
  } finally {
    await client.query(`SELECT pg_advisory_unlock(hashtext('geoportal:migrate'))`).catch(() => undefined);
    await client.end();
  }
}
