/**
 * Large JSON bodies and the storage quota (issue 40; CONTRACT.md 5 and 6), as a client meets
 * them: a flat 25 MB body of 990,000 short strings is parsed in a worker thread and stored whole
 * while colleagues are served, one user's second large body at the same time is refused 429
 * (another user's is not), a large body is checked like a small one (NUL, nesting, bad JSON, too
 * many values outside the stored value), and a company's values stay under its quota (413
 * `storage_quota_exceeded` with `used` and `quota`, nothing written; an overwrite frees the old
 * value; a user's own namespace counts against their company; the utilities page shows it).
 * The whole API in process on a scratch database, with a quota of 30 MB.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startOfficeApp, type OfficeApp } from '../helpers/officeApp';
import { config } from '../../domain/config';

const MB = 1024 * 1024;
const QUOTA = 30 * MB;

let app: OfficeApp;
let dan: string;
let bogdan: string;
let ana: string;
let ion: string;
let ioana: string;
/** Reads the utilities page's data (its loader's function) and the quota counter on the app's database. */
let pageStorage: (company: string) => Promise<{ used: number | null; quota: number }>;
let closeStore: () => Promise<void>;

beforeAll(async () => {
  app = await startOfficeApp('geoportal_storage_bodies', { storage: { quotaBytes: QUOTA } });
  dan = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
  bogdan = (await app.session({ email: 'bogdan@birou.ro', company: 'U' })).cookie;
  ana = (await app.session({ email: 'ana@birou.ro', company: 'B' })).cookie;
  ion = (await app.session({ email: 'ion@birou.ro', company: 'S' })).cookie;
  ioana = (await app.session({ email: 'ioana@birou.ro', company: 'S' })).cookie;
  const { createStore } = await import('../../domain/db/store');
  const { officePage } = await import('../../web/app/lib/office.server');
  const { processServices } = await import('../../temporal/services');
  const store = createStore(app.dbUrl);
  const services = processServices(store, { mail: null });
  closeStore = () => store.close();
  pageStorage = async (company) => {
    const auth = { user: { id: `page-${company}`, email: `pagina@birou.ro`, company } } as unknown as Parameters<typeof officePage>[1];
    const { storage } = await officePage(services, auth, 'agenda');
    return { used: storage.used, quota: storage.quota };
  };
});
afterAll(async () => {
  await closeStore?.();
  await app?.close();
});

/** `count` short strings, as the flood sent them (25 bytes each in the body). */
const flat = (count: number, tag = 's') => Array.from({ length: count }, (_, i) => `${tag}${String(i).padStart(21, '0')}`);
const put = (auth: string, body: string) => app.call('PUT', '/api/storage', { auth, body });
const items = async (auth: string, namespace: string) => (await app.call('GET', `/api/storage?namespace=${namespace}`, { auth })).body.items as Array<{ key: string; value: unknown }>;

test('a flat 25 MB body of 990,000 strings is stored whole while colleagues are served; the same user’s second one at once is 429, another user’s is not', async () => {
  const value = flat(990_000);
  const body = (key: string) => JSON.stringify({ namespace: 'mare', key, value });
  // 24.8 MB, as in the issue: just under the 25 MB limit.
  expect(Buffer.byteLength(body('plat'))).toBeGreaterThan(24_700_000);

  const [first, second, other, colleague] = await Promise.all([
    put(dan, body('plat')),
    put(dan, body('plat-2')),
    put(ana, JSON.stringify({ namespace: 'mare-b', key: 'plat', value })),
    // A colleague's small write and read in the meantime: parsed on the loop, answered.
    (async () => {
      const w = await put(bogdan, JSON.stringify({ namespace: 'mic', key: 'k', value: { zoom: 14 } }));
      const r = await app.call('GET', '/api/storage?namespace=mic', { auth: bogdan });
      return [w.status, r.status, r.body.items];
    })(),
  ]);
  // Whichever of Dan's two came first holds his large-body slot; the other is refused at once.
  const mine = [first, second].sort((a, b) => a.status - b.status);
  expect(mine.map((r) => r.status)).toEqual([200, 429]);
  expect(mine[1].body).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('cerere mare') });
  expect(Number(mine[1].headers.get('retry-after'))).toBeGreaterThan(0);
  expect(other.status).toBe(200);
  expect(colleague).toEqual([200, 200, [{ key: 'k', value: { zoom: 14 } }]]);

  // Exactly the accepted one is stored, value for value.
  const stored = await items(dan, 'mare');
  expect(stored).toHaveLength(1);
  expect(stored[0].key).toBe(first.status === 200 ? 'plat' : 'plat-2');
  expect(JSON.stringify(stored[0].value) === JSON.stringify(value)).toBe(true);
  const theirs = await items(ana, 'mare-b');
  expect(JSON.stringify(theirs[0].value) === JSON.stringify(value)).toBe(true);

  // The slot came back with the answer: Dan's next large body (an overwrite, within the quota) is accepted.
  expect((await put(dan, body(stored[0].key))).status).toBe(200);
}, 180_000);

test('a large body is checked like a small one: NUL, nesting, broken JSON, too many values outside the stored value', async () => {
  const value = flat(20_000);
  value[15_000] = 'a\u0000b';
  const nul = await put(dan, JSON.stringify({ namespace: 'verificat', key: 'nul', value }));
  expect(nul.status).toBe(400);
  expect(nul.body.details).toEqual([expect.objectContaining({ field: 'value.15000', problem: expect.stringContaining('NUL') })]);

  const filler = 'x'.repeat(300 * 1024);
  const deep = await put(dan, `{"namespace":"verificat","key":"adanc","pad":"${filler}","value":${'['.repeat(70)}${']'.repeat(70)}}`);
  expect(deep.status).toBe(400);
  expect(deep.body.message).toContain('imbricat prea adânc');

  const broken = await put(dan, JSON.stringify({ namespace: 'verificat', key: 'rupt', value: filler }).slice(0, -2));
  expect(broken.status).toBe(400);
  expect(broken.body.message).toContain('nu este JSON valid');

  // The stored value may hold up to a million values; the rest of the body, rebuilt on the event loop, 50,000.
  const crowded = await put(dan, JSON.stringify({ namespace: 'verificat', key: 'aglomerat', value: 1, extra: new Array(60_000).fill(7), pad: filler }));
  expect(crowded.status).toBe(400);
  expect(crowded.body.message).toContain('prea multe valori');

  expect(await items(dan, 'verificat')).toEqual([]);
});

test('a company’s values stay under its quota: 413 storage_quota_exceeded with used and quota, nothing written; overwrites free the old value', async () => {
  const string = (mb: number, c = 'A') => c.repeat(mb * MB);
  const body = (key: string, mb: number) => JSON.stringify({ namespace: 'dosare-s', key, value: string(mb) });
  // A value's size is its JSON text: the string and its two quotes.
  const size = (mb: number) => mb * MB + 2;

  expect((await put(ion, body('k1', 20))).status).toBe(200);
  // The page shows the company's use against the configured quota (1 GB by default).
  expect(await pageStorage('S')).toEqual({ used: size(20), quota: config.office.storageQuotaBytes });

  const over = await put(ion, body('k2', 12));
  expect(over.status).toBe(413);
  expect(over.body).toMatchObject({ error: 'storage_quota_exceeded', used: size(20), quota: QUOTA, message: expect.stringContaining('plin') });
  expect((await items(ion, 'dosare-s')).map((i) => i.key)).toEqual(['k1']);

  // Overwriting k1 counts only what it adds.
  expect((await put(ion, body('k1', 24))).status).toBe(200);
  expect((await pageStorage('S')).used).toBe(size(24));
  expect((await put(ioana, body('k3', 7))).status).toBe(413);

  // A user's own namespace counts against the company too.
  expect((await app.call('DELETE', '/api/storage?namespace=dosare-s&key=k1', { auth: ion })).status).toBe(200);
  expect((await pageStorage('S')).used).toBe(0);
  expect((await put(ion, JSON.stringify({ namespace: 'ciorne', key: 'c', value: string(20), scope: 'user' }))).status).toBe(200);
  expect((await pageStorage('S')).used).toBe(size(20));
  const mixed = await put(ioana, body('k4', 12));
  expect(mixed.status).toBe(413);
  expect(mixed.body.used).toBe(size(20));

  // Other companies keep their own quota.
  expect((await put(bogdan, JSON.stringify({ namespace: 'mic', key: 'k2', value: string(1) }))).status).toBe(200);
});

test('two writes of one company at once never pass the quota together', async () => {
  await app.call('DELETE', '/api/storage?namespace=ciorne&key=c&scope=user', { auth: ion });
  expect((await pageStorage('S')).used).toBe(0);
  const value = 'B'.repeat(16 * MB);
  const answers = await Promise.all([
    put(ion, JSON.stringify({ namespace: 'paralel', key: 'a', value })),
    put(ioana, JSON.stringify({ namespace: 'paralel', key: 'b', value })),
  ]);
  expect(answers.map((a) => a.status).sort()).toEqual([200, 413]);
  expect(await items(ion, 'paralel')).toHaveLength(1);
  expect((await pageStorage('S')).used).toBe(16 * MB + 2);
}, 120_000);
