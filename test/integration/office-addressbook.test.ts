/**
 * The address book and project-tag APIs as an external tool meets them (spec 4.6, 5.3;
 * CONTRACT.md sections 2, 4, 5): the ADDRESSBOOK_API_KEY bearer token or a user session, a wrong
 * token refused with nothing written, CRUD and search, project tags only, bad input, and the
 * 60-a-minute limit per token with Retry-After.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import pg from 'pg';
import { startOfficeApp, type OfficeApp } from '../helpers/officeApp';
import { config } from '../../domain/config';

let app: OfficeApp;
let db: pg.Pool;
let cookie: string;
const KEY = `Bearer ${config.tokens.addressBookApiKey}`;

beforeAll(async () => {
  app = await startOfficeApp('geoportal_office_addressbook');
  db = new pg.Pool({ connectionString: app.dbUrl, max: 2 });
  cookie = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
  await db.query(
    `INSERT INTO tags (path, category, project, phase, activity, project_code, company) VALUES
       ('B-0123 Casa Popescu', 'project', 'B-0123 Casa Popescu', NULL, NULL, 'B-0123', 'B'),
       ('B-0123 Casa Popescu, DTAC', 'phase', 'B-0123 Casa Popescu', 'DTAC', NULL, 'B-0123', 'B'),
       ('B-0123 Casa Popescu, DTAC, Releveu', 'activity', 'B-0123 Casa Popescu', 'DTAC', 'Releveu', 'B-0123', 'B'),
       ('U-0007 PUZ Sânpetru', 'project', 'U-0007 PUZ Sânpetru', NULL, NULL, 'U-0007', 'U')`,
  );
});
afterAll(async () => {
  await db?.end();
  await app?.close();
});

test('with the bearer key a tool adds, finds, changes and deletes a contact', async () => {
  const created = await app.call('POST', '/api/contacts', {
    auth: KEY,
    body: { name: 'Ion Țuțea', company: 'U', type: 'person', organization: 'Primăria Brașov', email: 'ion@primaria.ro', phone: '+40 722 000 000' },
  });
  expect(created.status).toBe(201);
  const id = created.body.contact.id;
  expect(created.body.contact).toEqual(expect.objectContaining({ name: 'Ion Țuțea', type: 'person', company: 'U' }));
  await app.call('POST', '/api/contacts', { auth: KEY, body: { name: 'ANCPI Covasna', company: 'B', type: 'institution' } });

  const byText = await app.call('GET', '/api/contacts?q=primăria', { auth: KEY });
  expect(byText.status).toBe(200);
  expect(byText.body.items.map((c: { name: string }) => c.name)).toEqual(['Ion Țuțea']);
  // Without diacritics, as one types: the same contact.
  for (const q of ['tutea', 'PRIMARIA BRASOV']) {
    const folded = await app.call('GET', `/api/contacts?q=${encodeURIComponent(q)}`, { auth: KEY });
    expect(folded.body.items.map((c: { name: string }) => c.name)).toEqual(['Ion Țuțea']);
  }
  const byFilter = await app.call('GET', '/api/contacts?company=B&type=institution', { auth: KEY });
  expect(byFilter.body.items.map((c: { name: string }) => c.name)).toEqual(['ANCPI Covasna']);
  const one = await app.call('GET', `/api/contacts?id=${id}`, { auth: KEY });
  expect(one.body.contact.email).toBe('ion@primaria.ro');

  const put = await app.call('PUT', `/api/contacts/${id}`, { auth: KEY, body: { role: 'arhitect-șef', phone: null } });
  expect(put.status).toBe(200);
  expect(put.body.contact).toEqual(expect.objectContaining({ role: 'arhitect-șef', phone: null, email: 'ion@primaria.ro' }));

  expect((await app.call('DELETE', `/api/contacts/${id}`, { auth: KEY })).body).toEqual({ deleted: true });
  expect((await app.call('GET', `/api/contacts?id=${id}`, { auth: KEY })).status).toBe(404);
  expect((await app.call('DELETE', `/api/contacts/${id}`, { auth: KEY })).status).toBe(404);
});

test('a user session works too; no credentials or a wrong token is 401 and nothing is written', async () => {
  const bySession = await app.call('POST', '/api/contacts', { auth: cookie, body: { name: 'Maria Sesiune' } });
  expect(bySession.status).toBe(201);
  const before = Number((await db.query(`SELECT count(*) FROM contacts`)).rows[0].count);
  for (const auth of [undefined, 'Bearer gresit', `Bearer ${config.tokens.addressBookApiKey}x`]) {
    const res = await app.call('POST', '/api/contacts', { auth, body: { name: 'Intrus' } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
    expect((await app.call('GET', '/api/contacts', { auth })).status).toBe(401);
    expect((await app.call('GET', '/api/project-tags', { auth })).status).toBe(401);
  }
  const someId = bySession.body.contact.id;
  expect((await app.call('PUT', `/api/contacts/${someId}`, { auth: 'Bearer gresit', body: { name: 'Schimbat' } })).status).toBe(401);
  expect((await app.call('DELETE', `/api/contacts/${someId}`, { auth: 'Bearer gresit' })).status).toBe(401);
  expect(Number((await db.query(`SELECT count(*) FROM contacts`)).rows[0].count)).toBe(before);
  expect((await db.query(`SELECT name FROM contacts WHERE id = $1`, [someId])).rows[0].name).toBe('Maria Sesiune');
});

test('project tags lists only project-level tags with code and company, filtered by q, company and id', async () => {
  const all = await app.call('GET', '/api/project-tags', { auth: KEY });
  expect(all.status).toBe(200);
  expect(all.body.items.map((t: { code: string; name: string; company: string }) => [t.code, t.name, t.company])).toEqual([
    ['B-0123', 'Casa Popescu', 'B'],
    ['U-0007', 'PUZ Sânpetru', 'U'],
  ]);
  expect((await app.call('GET', '/api/project-tags?company=U', { auth: KEY })).body.items.map((t: { code: string }) => t.code)).toEqual(['U-0007']);
  expect((await app.call('GET', '/api/project-tags?q=popescu', { auth: KEY })).body.items.map((t: { code: string }) => t.code)).toEqual(['B-0123']);
  const id = all.body.items[0].id;
  expect((await app.call('GET', `/api/project-tags?id=${id}`, { auth: cookie })).body.tag.path).toBe('B-0123 Casa Popescu');
  expect((await app.call('GET', '/api/project-tags?id=00000000-0000-4000-8000-000000000000', { auth: KEY })).status).toBe(404);
});

test('bad bodies and parameters are 400 with details', async () => {
  const noName = await app.call('POST', '/api/contacts', { auth: KEY, body: { email: 'nu-e-email' } });
  expect(noName.status).toBe(400);
  expect(noName.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'name']);
  expect((await app.call('GET', '/api/contacts?company=X', { auth: KEY })).body.details[0].field).toBe('company');
  expect((await app.call('PUT', '/api/contacts/nu-e-uuid', { auth: KEY, body: {} })).status).toBe(400);
});

// Last: it spends the key's budget for the minute.
test('over 60 requests a minute for one token the API answers 429 with Retry-After', async () => {
  let limited: Awaited<ReturnType<OfficeApp['call']>> | undefined;
  for (let i = 0; i < 70 && !limited; i++) {
    const res = await app.call('GET', '/api/project-tags', { auth: KEY });
    if (res.status === 429) limited = res;
  }
  expect(limited).toBeDefined();
  expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(limited!.body.error).toBe('rate_limited');
  // A user session is limited per user, not by the key's budget.
  expect((await app.call('GET', '/api/contacts', { auth: cookie })).status).toBe(200);
});
