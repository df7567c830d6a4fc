/**
 * Issue 13, deliverable 4: a session whose token refresh failed signs nobody in for the API and
 * the tiles (401), while /api/auth/session still tells the UI why; and the lists that grant rights
 * (ADMIN_EMAILS, pilots) trust an e-mail only when the identity provider verified it.
 */
import type { Server } from 'node:http';
import { listenApp } from '../helpers/appServer';

const { createApp } = await import('../../api/app');
const { createStore } = await import('../../domain/db/store');
const store = createStore();
const { createTestSessionRecord } = await import('../helpers/session');
const { closePool, getPool } = await import('../../domain/db/pool');
const { evaluateFlags } = await import('../../domain/auth/flags');

let server: Server;
let base: string;
let broken: Awaited<ReturnType<typeof createTestSessionRecord>>;
let healthy: Awaited<ReturnType<typeof createTestSessionRecord>>;

beforeAll(async () => {
  ({ server, base } = await listenApp(createApp({ store })));
  healthy = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
  broken = await createTestSessionRecord({ email: 'mihai@birou.ro', company: 'G' });
  // What session.ts stores when the identity provider refused the refresh token.
  await getPool().query(`UPDATE app_sessions SET data = jsonb_set(data, '{error}', '"RefreshAccessTokenError"') WHERE id = $1`, [broken.sessionId]);
});

afterAll(async () => {
  await Promise.allSettled([healthy.end(), broken.end()]);
  await new Promise((r) => server.close(r));
  await store.close();
  await closePool();
});

const get = (path: string, cookie: string) => fetch(`${base}${path}`, { headers: { cookie } });

test.each(['/api/landreg/stats', '/api/geoportal/search?q=cluj', '/tiles/catalog', '/tiles/gis_terenuri', '/tiles/gis_terenuri/16/37390/23400'])('%s answers 401 on a refresh-failed session', async (path) => {
  const ok = await get(path, healthy.cookie);
  expect(ok.status).not.toBe(401);
  await ok.arrayBuffer();
  const res = await get(path, broken.cookie);
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('autentificați-vă') });
});

test('/api/auth/session still answers, with the error the UI acts on', async () => {
  const res = await get('/api/auth/session', broken.cookie);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ error: 'RefreshAccessTokenError' });
});

test('admin and pilot lists trust only a verified e-mail; restricting lists apply anyway', () => {
  const settings = { useCentralApi: false, centralApiPilotUsers: ['ioana@birou.ro'], basicPanelUsers: ['ioana@birou.ro'], panelBasicGlobal: false, portalOnlyUsers: [], adminEmails: ['ioana@birou.ro'] };
  expect(evaluateFlags({ email: 'ioana@birou.ro', groups: [], emailVerified: true }, settings)).toEqual({ useCentralApi: true, basicPanel: true, isAdmin: true });
  expect(evaluateFlags({ email: 'ioana@birou.ro', groups: [], emailVerified: false }, settings)).toEqual({ useCentralApi: false, basicPanel: true, isAdmin: false });
});
