/**
 * `npm run migrate`: brings the configured database (config.db.url) to the current schema.
 * Prints only what it changed; silent when the store is already up to date.
 */
import { config, refuseUnsafeProductionStart } from '../domain/config';
import { migrate } from '../domain/db/migrate';

refuseUnsafeProductionStart();
try {
  const { applied, derived } = await migrate(config.db.url);
  for (const name of applied) console.log(`migration applied: ${name}`);
  for (const name of derived) console.log(`derived object applied: ${name}`);
} catch (err) {
  console.error('migration failed:', err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
