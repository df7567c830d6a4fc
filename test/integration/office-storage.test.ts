/**
 * Key-value storage as a client meets it (spec 4.6, CONTRACT.md sections 4, 5 and 6): records
 * written and exported, the lightweight strip at any depth, delete semantics, bad input, the
 * 25 MB body limit; namespaces scoped to a company or a user (another company's namespace is
 * 404 to read, write or delete; G reads all), the paged export and a streamed one of several records of
 * 20 MB, and an export its client stops reading and leaves, which lets go of what it holds. The
 * whole API in process on a scratch database; the export's record reader is watched (how many
 * records it handed out, whether it is still open), nothing of it replaced.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { once } from 'node:events';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { startOfficeApp, type OfficeApp } from '../helpers/officeApp';
import type { Services } from '../../domain/services';
import type { StorageRow } from '../../domain/office/storage';

let app: OfficeApp;
let cookie: string;
/** Bogdan, Dan's colleague at U; Ana at B; Mihai at the group company G; Radu without a company. */
let bogdan: string;
let ana: string;
let mihai: string;
let radu: string;

/** The exports' record readers: records handed to the route, readers not yet finished. */
const readers = { handedOut: 0, open: 0 };
async function* watched(rows: AsyncGenerator<StorageRow>): AsyncGenerator<StorageRow> {
  readers.open++;
  try {
    for await (const row of rows) {
      readers.handedOut++;
      yield row;
    }
  } finally {
    readers.open--;
  }
}

beforeAll(async () => {
  const { processServices } = await import('../../temporal/services');
  app = await startOfficeApp('geoportal_office_storage', {
    services: (store) => {
      const services: Services = processServices(store);
      const rows = services.office.namespaceRows;
      return { ...services, office: { ...services.office, namespaceRows: (...args) => watched(rows(...args)) } };
    },
  });
  cookie = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
  bogdan = (await app.session({ email: 'bogdan@birou.ro', company: 'U' })).cookie;
  ana = (await app.session({ email: 'ana@birou.ro', company: 'B', groups: ['admin'] })).cookie;
  mihai = (await app.session({ email: 'mihai@birou.ro', company: 'G' })).cookie;
  radu = (await app.session({ email: 'radu@birou.ro', company: null })).cookie;
});
afterAll(async () => {
  await app?.close();
});

const big = (n: number) => 'A'.repeat(n);

test('a record written with PUT comes back in the namespace export, whole by default', async () => {
  const value = { title: 'Dosar 12', fileData: big(5000), nested: { imageUrl: 'data:image/png;base64,' + big(3000) } };
  const put = await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'dosare', key: 'd-12', value } });
  expect(put.status).toBe(200);
  expect(put.body).toEqual({ namespace: 'dosare', key: 'd-12', created: true });
  const again = await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'dosare', key: 'd-12', value } });
  expect(again.body.created).toBe(false);

  const full = await app.call('GET', '/api/storage?namespace=dosare', { auth: cookie });
  expect(full.status).toBe(200);
  expect(full.body).toEqual({ namespace: 'dosare', items: [{ key: 'd-12', value }] });
});

test('lightweight export strips big strings under data, fileData and imageUrl at any depth, nothing else', async () => {
  const value = {
    data: big(1025),
    smallData: { data: 'mic' },
    exactlyOneKb: { fileData: big(1024) },
    notStripped: big(4000),
    attachments: [{ name: 'plan.pdf', fileData: big(2048) }, { name: 'foto', imageUrl: 'ș'.repeat(600) }],
    deep: { level: { fileData: big(1500), data: { inner: big(1500), count: 3 } } },
  };
  await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'usor', key: 'k1', value } });
  await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'usor', key: 'k0', value: null } });
  const res = await app.call('GET', '/api/storage?namespace=usor&lightweight=true', { auth: cookie });
  expect(res.status).toBe(200);
  expect(res.body.items.map((i: { key: string }) => i.key)).toEqual(['k0', 'k1']);
  expect(res.body.items[0].value).toBeNull();
  expect(res.body.items[1].value).toEqual({
    data: '__stripped__:1025',
    smallData: { data: 'mic' },
    exactlyOneKb: { fileData: big(1024) },
    notStripped: big(4000),
    // 600 × "ș" is 1,200 bytes in UTF-8: the limit counts bytes
    attachments: [{ name: 'plan.pdf', fileData: '__stripped__:2048' }, { name: 'foto', imageUrl: '__stripped__:1200' }],
    // A string counts by the key that holds it: `inner` under an object under `data` stays.
    deep: { level: { fileData: '__stripped__:1500', data: { inner: big(1500), count: 3 } } },
  });
  // The stored record is untouched by a lightweight read.
  const full = await app.call('GET', '/api/storage?namespace=usor&lightweight=false', { auth: cookie });
  expect(full.body.items[1].value.data).toBe(big(1025));
});

test('DELETE removes a record and answers 404 not_found only when it is absent', async () => {
  await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'sterge', key: 'x', value: { a: 1 } } });
  const del = await app.call('DELETE', '/api/storage?namespace=sterge&key=x', { auth: cookie });
  expect(del.status).toBe(200);
  expect(del.body).toEqual({ deleted: true });
  expect((await app.call('GET', '/api/storage?namespace=sterge', { auth: cookie })).body.items).toEqual([]);
  const gone = await app.call('DELETE', '/api/storage?namespace=sterge&key=x', { auth: cookie });
  expect(gone.status).toBe(404);
  expect(gone.body).toEqual(expect.objectContaining({ error: 'not_found', message: expect.stringContaining('x') }));
});

test('bad bodies and queries are 400 with details; no session is 401', async () => {
  const noValue = await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'a', key: 'b' } });
  expect(noValue.status).toBe(400);
  expect(noValue.body.details.map((d: { field: string }) => d.field)).toContain('value');
  const noNs = await app.call('GET', '/api/storage', { auth: cookie });
  expect(noNs.status).toBe(400);
  expect(noNs.body.details[0].field).toBe('namespace');
  const noKey = await app.call('DELETE', '/api/storage?namespace=a', { auth: cookie });
  expect(noKey.status).toBe(400);
  expect((await app.call('GET', '/api/storage?namespace=dosare')).status).toBe(401);
});

test('a body over 25 MB is refused with 413 and nothing is written', async () => {
  const res = await app.call('PUT', '/api/storage', {
    auth: cookie,
    body: { namespace: 'mare', key: 'k', value: { fileData: big(26 * 1024 * 1024) } },
  });
  expect(res.status).toBe(413);
  expect(res.body.error).toBe('payload_too_large');
  expect((await app.call('GET', '/api/storage?namespace=mare', { auth: cookie })).body.items).toEqual([]);
  // Just under the limit is accepted.
  const ok = await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'mare', key: 'k', value: { fileData: big(20 * 1024 * 1024) } } });
  expect(ok.status).toBe(200);
  const light = await app.call('GET', '/api/storage?namespace=mare&lightweight=1', { auth: cookie });
  expect(light.body.items[0].value).toEqual({ fileData: `__stripped__:${20 * 1024 * 1024}` });
});

describe('scopes: a company’s shared namespaces and each user’s own', () => {
  const secret = { title: 'Oferta U', fileData: big(2000) };

  test('another company’s namespace is 404 to read, write or delete; the owner’s record stays whole', async () => {
    expect((await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'oferte', key: 'o-1', value: secret } })).status).toBe(200);

    // Ana (company B, even an administrator): the name belongs to U, so for her it does not exist.
    const read = await app.call('GET', '/api/storage?namespace=oferte', { auth: ana });
    expect(read.status).toBe(404);
    expect(read.body.error).toBe('not_found');
    expect(JSON.stringify(read.body)).not.toContain('Oferta U');
    expect((await app.call('GET', '/api/storage?namespace=oferte&company=U', { auth: ana })).status).toBe(404);

    // Writing or deleting under that name, addressed to U or not, is refused the same way.
    expect((await app.call('PUT', '/api/storage', { auth: ana, body: { namespace: 'oferte', key: 'o-1', value: 'al lui B' } })).status).toBe(404);
    expect((await app.call('PUT', '/api/storage', { auth: ana, body: { namespace: 'oferte', key: 'o-2', value: 'nou', company: 'U' } })).status).toBe(404);
    expect((await app.call('DELETE', '/api/storage?namespace=oferte&key=o-1&company=U', { auth: ana })).status).toBe(404);
    expect((await app.call('DELETE', '/api/storage?namespace=oferte&key=o-1', { auth: ana })).status).toBe(404);

    // A name nobody holds is hers to take: then it is B's, and U's users get 404 on it.
    expect((await app.call('PUT', '/api/storage', { auth: ana, body: { namespace: 'oferte-b', key: 'o-1', value: 'al lui B' } })).body).toEqual({ namespace: 'oferte-b', key: 'o-1', created: true });
    expect((await app.call('GET', '/api/storage?namespace=oferte-b', { auth: bogdan })).status).toBe(404);

    // Dan's colleague at U shares the namespace; the record is intact.
    expect((await app.call('GET', '/api/storage?namespace=oferte', { auth: bogdan })).body.items).toEqual([{ key: 'o-1', value: secret }]);
  });

  test('the group company G reads every company’s namespace by its name', async () => {
    expect((await app.call('GET', '/api/storage?namespace=oferte', { auth: mihai })).body).toEqual({ namespace: 'oferte', items: [{ key: 'o-1', value: secret }] });
    expect((await app.call('GET', '/api/storage?namespace=oferte-b', { auth: mihai })).body.items).toEqual([{ key: 'o-1', value: 'al lui B' }]);
    expect((await app.call('GET', '/api/storage?namespace=oferte&company=U', { auth: mihai })).body.items).toEqual([{ key: 'o-1', value: secret }]);
    // Naming a company that does not hold the name: nothing there.
    expect((await app.call('GET', '/api/storage?namespace=oferte&company=B', { auth: mihai })).status).toBe(404);
    // G's own namespaces stay its own: a name nobody holds is G's.
    expect((await app.call('PUT', '/api/storage', { auth: mihai, body: { namespace: 'grup', key: 'g', value: 1 } })).status).toBe(200);
    expect((await app.call('GET', '/api/storage?namespace=grup', { auth: cookie })).status).toBe(404);
  });

  test('scope=user is the caller’s own: a colleague of the same company does not see it', async () => {
    const put = await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'preferinte', key: 'harta', value: { zoom: 14 }, scope: 'user' } });
    expect(put.status).toBe(200);
    expect((await app.call('GET', '/api/storage?namespace=preferinte&scope=user', { auth: cookie })).body.items).toEqual([{ key: 'harta', value: { zoom: 14 } }]);
    expect((await app.call('GET', '/api/storage?namespace=preferinte&scope=user', { auth: bogdan })).body.items).toEqual([]);
    expect((await app.call('GET', '/api/storage?namespace=preferinte', { auth: cookie })).body.items).toEqual([]);
    expect((await app.call('DELETE', '/api/storage?namespace=preferinte&key=harta&scope=user', { auth: bogdan })).status).toBe(404);
    expect((await app.call('GET', '/api/storage?namespace=preferinte&scope=user', { auth: cookie })).body.items).toHaveLength(1);
    // An account without a company has only its own scope.
    expect((await app.call('GET', '/api/storage?namespace=oferte', { auth: radu })).status).toBe(403);
    expect((await app.call('PUT', '/api/storage', { auth: radu, body: { namespace: 'n', key: 'k', value: 1, scope: 'user' } })).status).toBe(200);
    expect((await app.call('GET', '/api/storage?namespace=preferinte&scope=user&company=U', { auth: cookie })).status).toBe(400);
  });
});

describe('export in pages or streamed', () => {
  test('limit and cursor page through a namespace in key order; the last page says so', async () => {
    for (let i = 0; i < 7; i++) await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'pagini', key: `k${i}`, value: { i } } });
    const keys: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await app.call('GET', `/api/storage?namespace=pagini&limit=3${cursor ? `&cursor=${cursor}` : ''}`, { auth: cookie });
      expect(res.status).toBe(200);
      keys.push(...res.body.items.map((x: { key: string }) => x.key));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(keys).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6']);
    expect(pages).toBe(3);
    // A page that ends exactly at the last record still says there is nothing after it.
    const whole = await app.call('GET', '/api/storage?namespace=pagini&limit=7', { auth: cookie });
    expect(whole.body.nextCursor).toBeNull();
    expect((await app.call('GET', '/api/storage?namespace=pagini&cursor=%%%', { auth: cookie })).status).toBe(400);
    expect((await app.call('GET', '/api/storage?namespace=pagini&limit=0', { auth: cookie })).status).toBe(400);
  });

  test('a namespace of several 20 MB records streams whole, each record intact', async () => {
    const record = (i: number) => ({ fileData: String(i).repeat(20 * 1024 * 1024) });
    for (let i = 1; i <= 3; i++) expect((await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'arhiva', key: `a${i}`, value: record(i) } })).status).toBe(200);
    const res = await fetch(`${app.base}/api/storage?namespace=arhiva`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const body = (await res.json()) as { namespace: string; items: Array<{ key: string; value: { fileData: string } }> };
    expect(body.items.map((x) => [x.key, x.value.fileData.length, x.value.fileData === record(Number(x.key.slice(1))).fileData])).toEqual([
      ['a1', 20 * 1024 * 1024, true],
      ['a2', 20 * 1024 * 1024, true],
      ['a3', 20 * 1024 * 1024, true],
    ]);
  }, 120_000);

  test('an export whose client stops reading and then leaves lets go of its records at once', async () => {
    const record = (i: number) => ({ fileData: String(i % 10).repeat(4 * 1024 * 1024) });
    for (let i = 0; i < 12; i++) expect((await app.call('PUT', '/api/storage', { auth: cookie, body: { namespace: 'lasat', key: `r${i}`, value: record(i) } })).status).toBe(200);
    const before = { ...readers };
    const req = http.get(`${app.base}/api/storage?namespace=lasat`, { headers: { cookie } });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    res.pause();
    // The client reads nothing more: the export fills the socket and waits for it to drain.
    let seen = -1;
    while (readers.handedOut !== seen) {
      seen = readers.handedOut;
      await sleep(500);
    }
    expect(readers.open).toBe(before.open + 1);
    expect(readers.handedOut - before.handedOut).toBeLessThan(12);
    req.destroy();
    for (let i = 0; i < 50 && readers.open > before.open; i++) await sleep(100);
    // The route stopped waiting and closed its reader (before, it waited for a drain that never came).
    expect(readers.open).toBe(before.open);
    expect(readers.handedOut - before.handedOut).toBeLessThan(12);
  }, 120_000);
});
