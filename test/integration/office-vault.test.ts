/**
 * The password vault as its users meet it (spec 5.8, CONTRACT.md sections 3 and 4): round trip,
 * nothing in clear at rest (read with SQL), a ciphertext copied onto another record does not
 * open, legacy plaintext re-encrypted once, company scoping, the access log, bad input.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { startOfficeApp, type OfficeApp } from '../helpers/officeApp';

let app: OfficeApp;
let db: pg.Pool;
let dan: string; // company U
let ana: string; // company B
let mihai: string; // company G (sees all)

beforeAll(async () => {
  app = await startOfficeApp('geoportal_office_vault');
  db = new pg.Pool({ connectionString: app.dbUrl, max: 2 });
  dan = (await app.session({ email: 'dan@birou.ro', company: 'U' })).cookie;
  ana = (await app.session({ email: 'ana@birou.ro', company: 'B', groups: ['admin'] })).cookie;
  mihai = (await app.session({ email: 'mihai@birou.ro', company: 'G' })).cookie;
});
afterAll(async () => {
  await db?.end();
  await app?.close();
});

const SECRET = 'Parolă-Ștrengară#2026';

test('an entry round-trips: listed without password, read with it, nothing in clear in the table', async () => {
  const created = await app.call('POST', '/api/vault', {
    auth: dan,
    body: { name: 'ANCPI ePay', username: 'birou.urb', url: 'https://epay.ancpi.ro', password: SECRET, notes: 'cont firmă' },
  });
  expect(created.status).toBe(201);
  expect(created.body.entry).toEqual(expect.objectContaining({ name: 'ANCPI ePay', company: 'U', hasPassword: true }));
  expect(JSON.stringify(created.body)).not.toContain(SECRET);
  const id = created.body.entry.id;

  const list = await app.call('GET', '/api/vault', { auth: dan });
  expect(list.status).toBe(200);
  expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([id]);
  expect(list.body.items[0]).not.toHaveProperty('password');
  expect(JSON.stringify(list.body)).not.toContain(SECRET);

  const one = await app.call('GET', `/api/vault?id=${id}`, { auth: dan });
  expect(one.status).toBe(200);
  expect(one.body.entry).toEqual(expect.objectContaining({ id, password: SECRET, username: 'birou.urb' }));
  // A password answer is kept by no cache (browser, proxy), nor is the list.
  expect(one.headers.get('cache-control')).toBe('no-store');
  expect(list.headers.get('cache-control')).toBe('no-store');

  const row = (await db.query(`SELECT password, kdf_iterations FROM vault_entries WHERE id = $1`, [id])).rows[0];
  expect(row.password).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
  expect(row.password).not.toContain(SECRET);
  expect(row.kdf_iterations).toBe(210_000);
  const dump = (await db.query(`SELECT t::text AS t FROM vault_entries t`)).rows.map((r) => r.t).join('\n');
  expect(dump).not.toContain(SECRET);

  // Changing the password re-seals it; other fields stay.
  const put = await app.call('PUT', `/api/vault?id=${id}`, { auth: dan, body: { password: 'alta-parola' } });
  expect(put.status).toBe(200);
  expect(put.body.entry.username).toBe('birou.urb');
  expect((await app.call('GET', `/api/vault?id=${id}`, { auth: dan })).body.entry.password).toBe('alta-parola');
  // Every vault answer stays out of caches: writes, the access log and errors too.
  const missing = await app.call('PUT', `/api/vault?id=${randomUUID()}`, { auth: dan, body: { notes: 'x' } });
  expect(missing.status).toBe(404);
  const log = await app.call('GET', `/api/vault/access-log?id=${id}`, { auth: dan });
  for (const r of [put, missing, log]) expect(r.headers.get('cache-control')).toBe('no-store');

  // Every field of an entry can be edited: name, notes, URL, password, and cleared again.
  const edited = await app.call('PUT', `/api/vault?id=${id}`, {
    auth: dan,
    body: { name: 'Cont urbanism (nou)', notes: 'Cont comun, schimbat lunar', url: 'https://urbanism.example.ro/nou', password: 'a-treia' },
  });
  expect(edited.status).toBe(200);
  expect(edited.body.entry).toEqual(
    expect.objectContaining({ name: 'Cont urbanism (nou)', notes: 'Cont comun, schimbat lunar', url: 'https://urbanism.example.ro/nou', username: 'birou.urb', hasPassword: true }),
  );
  expect((await app.call('GET', `/api/vault?id=${id}`, { auth: dan })).body.entry.password).toBe('a-treia');
  const cleared = await app.call('PUT', `/api/vault?id=${id}`, { auth: dan, body: { url: '', notes: null } });
  expect(cleared.body.entry).toEqual(expect.objectContaining({ url: '', notes: null, hasPassword: true }));
});

test('a ciphertext copied onto another record does not decrypt, and the error reveals nothing', async () => {
  const a = (await app.call('POST', '/api/vault', { auth: dan, body: { name: 'Sursa', password: SECRET } })).body.entry.id;
  const b = (await app.call('POST', '/api/vault', { auth: dan, body: { name: 'Ținta', password: 'altceva' } })).body.entry.id;
  await db.query(`UPDATE vault_entries SET password = (SELECT password FROM vault_entries WHERE id = $1) WHERE id = $2`, [a, b]);
  const res = await app.call('GET', `/api/vault?id=${b}`, { auth: dan });
  expect(res.status).toBe(500);
  expect(res.body).toEqual(expect.objectContaining({ error: 'internal_error', hint: 'decryption_failed' }));
  expect(JSON.stringify(res.body)).not.toContain(SECRET);
  // The source still opens.
  expect((await app.call('GET', `/api/vault?id=${a}`, { auth: dan })).body.entry.password).toBe(SECRET);
});

test('PATCH re-encrypts legacy plaintext entries once; a second call migrates 0', async () => {
  const legacy = await db.query<{ id: string }>(
    `INSERT INTO vault_entries (name, username, password, company) VALUES ('Vechi 1', 'u1', 'parola-veche-1', 'S'), ('Vechi 2', 'u2', 'parola-veche-2', 'S') RETURNING id`,
  );
  const ioana = (await app.session({ email: 'ioana@birou.ro', company: 'S' })).cookie;
  // Before migration, the plaintext is readable as it is.
  expect((await app.call('GET', `/api/vault?id=${legacy.rows[0].id}`, { auth: ioana })).body.entry.password).toBe('parola-veche-1');
  const first = await app.call('PATCH', '/api/vault', { auth: ioana });
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ migrated: 2 });
  const second = await app.call('PATCH', '/api/vault', { auth: ioana });
  expect(second.body).toEqual({ migrated: 0 });
  const rows = (await db.query(`SELECT password FROM vault_entries WHERE company = 'S'`)).rows;
  for (const r of rows) expect(r.password.startsWith('v1:')).toBe(true);
  expect((await app.call('GET', `/api/vault?id=${legacy.rows[1].id}`, { auth: ioana })).body.entry.password).toBe('parola-veche-2');
});

test('entries are per company: another company neither lists nor reads them; G sees all', async () => {
  const anaEntry = (await app.call('POST', '/api/vault', { auth: ana, body: { name: 'Portal B', password: 'b-secret' } })).body.entry;
  expect(anaEntry.company).toBe('B');
  const danList = await app.call('GET', '/api/vault', { auth: dan });
  expect(danList.body.items.every((e: { company: string }) => e.company === 'U')).toBe(true);
  expect((await app.call('GET', `/api/vault?id=${anaEntry.id}`, { auth: dan })).status).toBe(404);
  expect((await app.call('DELETE', `/api/vault?id=${anaEntry.id}`, { auth: dan })).status).toBe(404);
  const forOther = await app.call('POST', '/api/vault', { auth: dan, body: { name: 'X', company: 'B' } });
  expect(forOther.status).toBe(403);
  const all = await app.call('GET', '/api/vault', { auth: mihai });
  expect(new Set(all.body.items.map((e: { company: string }) => e.company))).toEqual(new Set(['U', 'B', 'S']));
  // G moves an entry to another company: the password is re-sealed and still opens.
  const moved = await app.call('PUT', '/api/vault', { auth: mihai, body: { id: anaEntry.id, company: 'U' } });
  expect(moved.body.entry.company).toBe('U');
  expect((await app.call('GET', `/api/vault?id=${anaEntry.id}`, { auth: dan })).body.entry.password).toBe('b-secret');
  const search = await app.call('GET', '/api/vault?q=portal', { auth: dan });
  expect(search.body.items.map((e: { name: string }) => e.name)).toEqual(['Portal B']);
  expect((await app.call('DELETE', `/api/vault?id=${anaEntry.id}`, { auth: dan })).body).toEqual({ deleted: true });
  expect((await app.call('GET', `/api/vault?id=${anaEntry.id}`, { auth: dan })).status).toBe(404);
});

test('reading a password is logged with who and when, visible in the access log', async () => {
  const id = (await app.call('POST', '/api/vault', { auth: dan, body: { name: 'Jurnal', password: 'j' } })).body.entry.id;
  const before = Date.now();
  await app.call('GET', `/api/vault?id=${id}`, { auth: dan });
  await app.call('GET', `/api/vault?id=${id}`, { auth: mihai });
  const logRes = await app.call('GET', `/api/vault/access-log?id=${id}`, { auth: dan });
  expect(logRes.status).toBe(200);
  expect(logRes.body.items.map((i: { userEmail: string }) => i.userEmail)).toEqual(['mihai@birou.ro', 'dan@birou.ro']);
  expect(logRes.body.items[0]).toEqual(expect.objectContaining({ entryId: id, entryName: 'Jurnal' }));
  expect(new Date(logRes.body.items[1].at).getTime()).toBeGreaterThanOrEqual(before - 1000);
  // The list does not count as a read.
  await app.call('GET', '/api/vault', { auth: dan });
  expect((await app.call('GET', `/api/vault/access-log?id=${id}`, { auth: dan })).body.items).toHaveLength(2);
});

test('bad bodies are 400 with details; no session is 401', async () => {
  const noName = await app.call('POST', '/api/vault', { auth: dan, body: { password: 'x' } });
  expect(noName.status).toBe(400);
  expect(noName.body.details.map((d: { field: string }) => d.field)).toContain('name');
  const badId = await app.call('GET', '/api/vault?id=nu-e-uuid', { auth: dan });
  expect(badId.status).toBe(400);
  expect(badId.body.details[0].field).toBe('id');
  const noId = await app.call('PUT', '/api/vault', { auth: dan, body: { name: 'x' } });
  expect(noId.status).toBe(400);
  // Only web addresses: the UI makes a link of it, and a script address would run on a click.
  for (const url of ['javascript:alert(document.cookie)', 'data:text/html,<script>1</script>', 'ftp://server/x', 'epay.ancpi.ro']) {
    const bad = await app.call('POST', '/api/vault', { auth: dan, body: { name: 'Cont', url } });
    expect([url, bad.status, bad.body.details?.[0]?.field]).toEqual([url, 400, 'url']);
  }
  const ok = await app.call('POST', '/api/vault', { auth: dan, body: { name: 'Cont http', url: 'http://intranet.birou.ro/ghid' } });
  expect(ok.status).toBe(201);
  expect((await app.call('PUT', `/api/vault?id=${ok.body.entry.id}`, { auth: dan, body: { url: 'javascript:void(0)' } })).status).toBe(400);
  await app.call('DELETE', `/api/vault?id=${ok.body.entry.id}`, { auth: dan });
  expect((await app.call('GET', '/api/vault')).status).toBe(401);
});
