/**
 * The API holding under abuse (issue 13, deliverable 3): an anonymous caller keeps its
 * per-address limit whatever Authorization header it invents, wrong bearer tokens are counted per
 * address (on the API and on the tile-rebuild webhook), and a cadastral search asking for more
 * numbers than the documented cap is refused before any portal call. In-process apps on the real
 * database: each test builds its own app, so its counters are its own.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';

process.env.RATE_LIMIT_PER_MINUTE = '300';

const { createApp } = await import('../../api/app');
const { createTestSessionRecord } = await import('../helpers/session');
const { closePool } = await import('../../domain/db/pool');
const { MAX_CADASTRAL_NUMBERS } = await import('../../domain/enrichment/service');

const servers: Server[] = [];
let dan: Awaited<ReturnType<typeof createTestSessionRecord>>;

async function freshApp(): Promise<string> {
  const server = createApp().listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const randomBearer = () => ({ authorization: `Bearer ${randomBytes(24).toString('hex')}` });

beforeAll(async () => {
  dan = await createTestSessionRecord({ email: 'dan@birou.ro', company: 'U' });
});

afterAll(async () => {
  await dan.end();
  for (const s of servers) await new Promise((r) => s.close(r));
  await closePool();
});

test('200 random bearer tokens from one address on a cron route end in 429 with Retry-After', async () => {
  const base = await freshApp();
  const statuses: number[] = [];
  let limited: { retryAfter: string | null; body: unknown } | undefined;
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${base}/api/landreg/auto-refresh`, { method: 'POST', headers: randomBearer() });
    statuses.push(res.status);
    const body: unknown = await res.json();
    if (res.status === 429) limited = { retryAfter: res.headers.get('retry-after'), body };
  }
  expect(statuses[0]).toBe(401);
  expect(statuses.slice(-50).every((s) => s === 429)).toBe(true);
  expect(limited!.retryAfter).toMatch(/^\d+$/);
  expect(limited!.body).toMatchObject({ error: 'rate_limited' });
});

test('the tile-rebuild webhook counts wrong tokens per address the same way', async () => {
  const base = await freshApp();
  const statuses: number[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${base}/tiles/rebuild-webhook`, { method: 'POST', headers: randomBearer() });
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  expect(statuses[0]).toBe(401);
  expect(statuses.at(-1)).toBe(429);
});

test('an anonymous caller keeps its per-address limit whatever Authorization header it sends', async () => {
  const base = await freshApp();
  let limitedAt = -1;
  for (let i = 0; i < 400 && limitedAt < 0; i++) {
    // A public route: the answers are 200, so only the per-address limit can stop this caller.
    const res = await fetch(`${base}/api/version`, { headers: randomBearer() });
    if (res.status === 429) limitedAt = i;
    await res.arrayBuffer();
  }
  expect(limitedAt).toBeGreaterThan(0);
  expect(limitedAt).toBeLessThanOrEqual(300);
  // A signed-in user on the same address has their own bucket.
  expect((await fetch(`${base}/api/version`, { headers: { cookie: dan.cookie } })).status).toBe(200);
});

test(`a cadastral search with more than ${MAX_CADASTRAL_NUMBERS} numbers is a 400 naming the field`, async () => {
  const base = await freshApp();
  const numbers = Array.from({ length: MAX_CADASTRAL_NUMBERS + 1 }, (_, i) => String(100000 + i)).join(',');
  const res = await fetch(`${base}/api/landreg/search`, {
    method: 'POST',
    headers: { cookie: dan.cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ siruta: 42708, cadastralNumbers: numbers }),
  });
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.error).toBe('bad_request');
  expect(body.details).toEqual([expect.objectContaining({ field: 'cadastralNumbers' })]);
});
