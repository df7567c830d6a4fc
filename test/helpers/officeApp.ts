/**
 * The whole API (createApp) in process on a scratch database of the test stack's PostgreSQL,
 * migrated from scratch, for the office-utility suites: storage, vault, address book, tags are
 * shared tables, so a suite asserting whole listings gets a database of its own. Sessions are real
 * rows. Import it before anything that opens the shared pool: it points DATABASE_URL at the
 * scratch database (config.db.url reads the environment on each use).
 */
import { scratchDatabase } from './scratchDb';
import { createTestSessionRecord, type TestSession, type TestSessionOptions } from './session';
import { listenApp } from './appServer';
import type { RequestHandler } from 'express';
import type { AppDeps } from '../../api/app';
import type { Store } from '../../domain/db/store';
import type { Services } from '../../domain/services';

export interface OfficeApp {
  base: string;
  dbUrl: string;
  session(opts: TestSessionOptions): Promise<TestSession>;
  /** JSON request; `auth` is a Cookie header value or `Bearer …`. */
  call(method: string, path: string, opts?: { auth?: string; body?: unknown }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * `deps`: settings of the app beyond its store (a small storage quota, say); `services`, when
 * given, builds the areas' services from the app's store (a test that watches one of them);
 * `web`, the pages' handlers over the same store and services (api/web.ts, as api/server.ts
 * mounts them; the pages must be built).
 */
export async function startOfficeApp(
  prefix: string,
  deps: Omit<AppDeps, 'store' | 'services' | 'web'> & {
    services?: (store: Store) => Services;
    web?: (store: Store, services: Services) => Promise<RequestHandler[]>;
  } = {},
): Promise<OfficeApp> {
  const scratch = scratchDatabase(prefix);
  await scratch.create();
  const { migrate } = await import('../../domain/db/migrate');
  await migrate(scratch.url);
  const previousUrl = process.env.DATABASE_URL;
  process.env.DATABASE_URL = scratch.url;
  const { createApp } = await import('../../api/app');
  const { closePool } = await import('../../domain/db/pool');
  const { disconnectPrisma } = await import('../../domain/db/prisma');
  const { createStore } = await import('../../domain/db/store');
  const { processServices } = await import('../../temporal/services');
  const { closeTemporalClient } = await import('../../temporal/client');
  const store = createStore(scratch.url);
  const services = deps.services?.(store) ?? processServices(store, { outside: deps.outside });
  const web = deps.web ? await deps.web(store, services) : undefined;
  const { server, base } = await listenApp(createApp({ ...deps, store, services, web }));
  const sessions: TestSession[] = [];
  return {
    base,
    dbUrl: scratch.url,
    async session(opts) {
      const s = await createTestSessionRecord(opts);
      sessions.push(s);
      return s;
    },
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = {};
      if (opts.auth) headers[opts.auth.startsWith('Bearer ') ? 'authorization' : 'cookie'] = opts.auth;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: the raw text is the body */
      }
      return { status: res.status, body, headers: res.headers };
    },
    async close() {
      for (const s of sessions) await s.end();
      await new Promise((r) => server.close(r));
      await closeTemporalClient();
      await store.close();
      await disconnectPrisma();
      await closePool();
      // The scratch helper connects through config.db.url: back to the stack's database first.
      if (previousUrl === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previousUrl;
      await scratch.drop();
    },
  };
}
