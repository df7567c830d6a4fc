/**
 * Key-value storage as a client meets it (spec 4.6, CONTRACT.md sections 4 and 5): records
 * written and exported, the lightweight strip at any depth, delete semantics, bad input, the
 * 25 MB body limit. The whole API in process on a scratch database.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startOfficeApp, type OfficeApp } from '../helpers/officeApp';

let app: OfficeApp;
let cookie: string;

beforeAll(async () => {
  app = await startOfficeApp('geoportal_office_storage');
  cookie = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
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
