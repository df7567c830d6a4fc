/**
 * The real app with the BUILT web UI in this process, as api/server.ts mounts it (the page guard,
 * the pages' static files and the Remix handler), over the stack's database and Temporal: for the
 * tests of a page's doors. The pages must be built from the current source first (`npm run
 * build:web`, or scripts/bootstrap, which rebuilds when web/ changed). A test that sets its
 * environment first imports this module after it.
 */
import { createApp } from '../../api/app';
import { pageGuard } from '../../api/auth';
import { createWebHandlers } from '../../api/web';
import { closePool } from '../../domain/db/pool';
import { disconnectPrisma } from '../../domain/db/prisma';
import { createStore, type Store } from '../../domain/db/store';
import { closeTemporalClient } from '../../temporal/client';
import { processServices } from '../../temporal/services';
import { listenApp } from './appServer';
import type { TestSession } from './session';

export interface WebApp {
  base: string;
  store: Store;
  /** A GET as the signed-in `who` (a page, its data request, an API route), the answer read as text. */
  get(path: string, who: TestSession): Promise<{ status: number; headers: Headers; text: string }>;
  /** Ends the server and everything the app opened (its store, Temporal's client, Prisma). */
  close(): Promise<void>;
}

export async function startWebApp(): Promise<WebApp> {
  const store = createStore();
  const services = processServices(store);
  const { server, base } = await listenApp(createApp({ store, services, web: [pageGuard, ...(await createWebHandlers(store, services))] }));
  return {
    base,
    store,
    async get(path, who) {
      const res = await fetch(`${base}${path}`, { headers: { cookie: who.cookie } });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
    async close() {
      await new Promise((r) => server.close(r));
      await closeTemporalClient();
      await disconnectPrisma();
      await store.close();
      await closePool();
    },
  };
}
