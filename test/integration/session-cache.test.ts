/**
 * The in-process session cache (api/auth/sessionStore.ts loadSessionCached) through the real
 * Express app and PostgreSQL: what this process does to a session (logout) takes effect at once;
 * what another process does (a DELETE it ran) within SESSION_CACHE_TTL_MS; expiry is checked on
 * every request against the cached timestamps; concurrent requests of one browser share one read.
 * Runs against the test stack's PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';

// config reads the environment once, at import: a short TTL before anything of ours is imported.
const TTL_MS = 3000;
process.env.SESSION_CACHE_TTL_MS = String(TTL_MS);

type Pool = import('pg').Pool;
let app: { url: string; close(): Promise<void> };
let pool: Pool;
let closePool: () => Promise<void>;
let createTestSessionRecord: typeof import('../helpers/session').createTestSessionRecord;
let store: typeof import('../../api/auth/sessionStore');
let createPool: typeof import('../../domain/db/pool').createPool;
let config: typeof import('../../domain/config').config;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const whoami = (cookie: string) => fetch(`${app.url}/api/auth/session`, { headers: { cookie } });

beforeAll(async () => {
  const fixtures = await import('../helpers/tilesFixtures');
  const poolMod = await import('../../domain/db/pool');
  ({ createTestSessionRecord } = await import('../helpers/session'));
  store = await import('../../api/auth/sessionStore');
  pool = poolMod.getPool();
  createPool = poolMod.createPool;
  ({ config } = await import('../../domain/config'));
  closePool = poolMod.closePool;
  app = await fixtures.startTestApp();
});

afterAll(async () => {
  await app?.close();
  await closePool?.();
});

describe('session cache', () => {
  test('the configured TTL is the one under test', () => {
    expect(config.app.sessionCacheTtlMs).toBe(TTL_MS);
  });

  test('a logout through this process ends the session at once', async () => {
    const s = await createTestSessionRecord({ email: 'cache-logout@birou.ro' });
    expect((await whoami(s.cookie)).status).toBe(200);
    expect((await whoami(s.cookie)).status).toBe(200); // now answered from memory
    const out = await fetch(`${app.url}/auth/logout`, { method: 'POST', headers: { cookie: s.cookie }, redirect: 'manual' });
    expect(out.status).toBe(303);
    expect((await whoami(s.cookie)).status).toBe(401);
  });

  test('a session deleted by another process is refused within the TTL', async () => {
    const s = await createTestSessionRecord({ email: 'cache-revoked@birou.ro' });
    expect((await whoami(s.cookie)).status).toBe(200);
    // What another web process's logout does: a DELETE this process is not told about.
    await pool.query(`DELETE FROM app_sessions WHERE id = $1`, [s.sessionId]);
    const deletedAt = Date.now();
    // The property, free of the machine's speed: no request sent later than the TTL after the
    // delete is served (the cached row was read before the delete, so it is at most that old).
    let lastServedSentAfter = -Infinity;
    let refused = false;
    while (!refused && Date.now() - deletedAt < TTL_MS + 5000) {
      const sentAfter = Date.now() - deletedAt;
      const res = await whoami(s.cookie);
      refused = res.status === 401;
      if (!refused) {
        expect(res.status).toBe(200);
        lastServedSentAfter = sentAfter;
        await sleep(100);
      }
    }
    expect(refused).toBe(true);
    expect(lastServedSentAfter).toBeLessThanOrEqual(TTL_MS);
  });

  test('expiry is checked on every request, against the cached row', async () => {
    const s = await createTestSessionRecord({ email: 'cache-expiring@birou.ro' });
    await pool.query(`UPDATE app_sessions SET expires_at = now() + interval '1 second' WHERE id = $1`, [s.sessionId]);
    store.clearSessionCache();
    expect((await whoami(s.cookie)).status).toBe(200);
    await sleep(1300); // past expires_at, well within the TTL
    expect((await whoami(s.cookie)).status).toBe(401);
    await s.end();
  });

  test('within the TTL a session is read once, however many requests ask; a forget makes it read again', async () => {
    const s = await createTestSessionRecord({ email: 'cache-burst@birou.ro' });
    // A real pool to PostgreSQL, with a count of the queries it runs.
    const counted = createPool(config.db.url, 2);
    const query = counted.query.bind(counted) as (...args: unknown[]) => unknown;
    let reads = 0;
    counted.query = ((...args: unknown[]) => {
      reads++;
      return query(...args);
    }) as typeof counted.query;
    try {
      store.clearSessionCache();
      const burst = await Promise.all(Array.from({ length: 20 }, () => store.loadSessionCached(counted, s.sessionId)));
      expect(burst.every((r) => r?.data.user.email === 'cache-burst@birou.ro')).toBe(true);
      for (let i = 0; i < 20; i++) expect((await store.loadSessionCached(counted, s.sessionId))?.id).toBe(s.sessionId);
      expect(reads).toBe(1);

      store.forgetSession(s.sessionId);
      expect((await store.loadSessionCached(counted, s.sessionId))?.id).toBe(s.sessionId);
      expect(reads).toBe(2);

      await sleep(TTL_MS + 100);
      expect((await store.loadSessionCached(counted, s.sessionId))?.id).toBe(s.sessionId);
      expect(reads).toBe(3);
    } finally {
      await counted.end();
      await s.end();
    }
  });
});
