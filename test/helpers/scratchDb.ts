/**
 * A throwaway database on the test stack's PostgreSQL (config.db's user is a superuser), for
 * tests that migrate from scratch. Named after the test and the process, so parallel test files
 * never meet; dropped WITH (FORCE) so a leaked connection cannot keep it alive.
 */
import pg from 'pg';
import { config } from '../../domain/config';

export interface ScratchDatabase {
  name: string;
  url: string;
  create(): Promise<void>;
  drop(): Promise<void>;
}

export function scratchDatabase(prefix: string): ScratchDatabase {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  const u = new URL(config.db.url);
  u.pathname = `/${name}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: config.db.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    name,
    url: u.toString(),
    create: () => admin(`CREATE DATABASE ${name}`),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
