/**
 * A page's loader and action answer bad input with a 4xx, never a 500, as the API does (the rule
 * "an API route, a page's loader or action ... all pass the same limits, rules and viewer
 * checks"):
 * - /registratura's loader holds the list's filters to the API's bounds (REGISTRY_LIST_BOUNDS):
 *   `page=1e300` and a NUL in `q` reached PostgreSQL (500); now the page shows the list without
 *   them, while GET /api/registratura/entries refuses them (400); an entry id that is no UUID
 *   opens nothing (it reached the uuid column: "an unexpected error");
 * - /parcel-sync's sync tab reads its search of the store's UATs as the registry's (a NUL was a 500);
 * - /parcel-sync (search tab) and /parcel-sync/dashboard read SIRUTA and the owner name by the
 *   API's rules (400 with the reason), and a parcel's action refuses what is no parcel id (404);
 * - /infrastructura-harti's action reads its intent form within a byte cap
 *   (web/app/lib/forms.server.ts): a body that is not a form is a 400, one past the cap a 413
 *   (read no further), and a non-administrator is answered without the body being parsed.
 *
 * The real app in this process with the BUILT web UI (api/web.ts, build/server), as api/server.ts
 * mounts it, over the stack's database and Temporal: the pages must be built from the current
 * source first (`npm run build:web`, or scripts/bootstrap, which rebuilds when web/ changed).
 * No action here starts a rebuild or a backup: the administrator's requests are all refused.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestSessionRecord, type TestSession } from '../helpers/session';
import { startWebApp, type WebApp } from '../helpers/webApp';

let app: WebApp;
let base: string;
let user: TestSession; // B, ordinary
let admin: TestSession;

const MB = 1024 * 1024;

beforeAll(async () => {
  app = await startWebApp();
  base = app.base;
  user = await createTestSessionRecord({ email: 'bogdan@birou.ro', name: 'Bogdan Birou', company: 'B' });
  admin = await createTestSessionRecord({ email: 'ana@birou.ro', name: 'Ana Admin', company: 'B', groups: ['admin'] });
}, 60_000);

afterAll(async () => {
  for (const s of [user, admin]) await s?.end();
  await app?.close();
});

const page = (p: string, who: TestSession) => app.get(p, who);

describe('/registratura: the list filters hold the API’s bounds', () => {
  test('an out-of-bounds page number or a NUL in the search is dropped: the page shows the list (200), the API refuses them (400)', async () => {
    for (const query of ['page=1e300', 'q=a%00b', 'page=100001', 'page=-3', 'page=2.5', 'year=99999', 'year=1e300', `q=${'x'.repeat(300)}`]) {
      const r = await page(`/registratura?${query}`, user);
      expect({ query, status: r.status }).toEqual({ query, status: 200 });
      expect(r.text).toContain('<title>Registratură</title>');
    }
    for (const query of ['page=1e300', 'q=a%00b', 'page=100001']) {
      const r = await page(`/api/registratura/entries?${query}`, user);
      expect({ query, status: r.status }).toEqual({ query, status: 400 });
    }
  });

  test('a dropped search shows an empty search box; a valid search and page still apply', async () => {
    const nul = await page('/registratura?q=adresa%00x', user);
    expect(nul.status).toBe(200);
    expect(nul.text).toMatch(/<input name="q"[^>]*value=""/);
    const ok = await page('/registratura?q=adresa&page=2&year=2031', user);
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/<input name="q"[^>]*value="adresa"/);
    expect(ok.text).toMatch(/<input name="year"[^>]*value="2031"/);
    // The browser holds the year box to the same bounds before anything is sent.
    expect(ok.text).toMatch(/<input name="year" type="number" min="1990" max="2100" step="1"/);
  });

  test('an entry id of 36 hex digits and dashes that is no UUID opens no entry and no error (it was "an unexpected error")', async () => {
    for (const id of ['-'.repeat(36), `${'a'.repeat(35)}-`, '0000000000000000000000000000000000aa']) {
      const r = await page(`/registratura?id=${id}`, user);
      expect({ id, status: r.status }).toEqual({ id, status: 200 });
      expect(r.text).toContain('<title>Registratură</title>');
      expect(r.text).not.toContain('A apărut o eroare neașteptată');
      expect((await page(`/api/registratura/entries/${id}`, user)).status).toBe(400);
    }
  });
});

describe('/infrastructura-harti: the action reads a small form only', () => {
  const post = async (who: TestSession, contentType: string, body: BodyInit, init: RequestInit = {}) => {
    const res = await fetch(`${base}/infrastructura-harti`, { method: 'POST', headers: { cookie: who.cookie, 'content-type': contentType }, body, ...init });
    return { status: res.status, text: await res.text() };
  };

  test('a body that is not a form is a 400 with its reason in Romanian, not a 500', async () => {
    const broken = await post(admin, 'multipart/form-data; boundary=frontiera', '--frontiera\r\nnu este un formular');
    expect(broken.status).toBe(400);
    expect(broken.text).toContain('Cererea nu conține un formular valid.');
    expect((await post(admin, 'application/json', '{')).status).toBe(400);
    expect((await post(admin, 'text/plain', 'intent=rebuild')).status).toBe(400);
  });

  test('a body past the cap is a 413, declared or streamed, and is not parsed', async () => {
    // No closing boundary: parsed whole, as before, it failed (500); read within the cap it never gets that far.
    const big = Buffer.concat([Buffer.from('--frontiera\r\nContent-Disposition: form-data; name="intent"\r\n\r\n'), Buffer.alloc(40 * MB, 0x61)]);
    const declared = await post(admin, 'multipart/form-data; boundary=frontiera', big);
    expect(declared.status).toBe(413);
    expect(declared.text).toContain('Cererea depășește dimensiunea maximă permisă.');
    // Without a Content-Length (chunked), the cap is counted as the bytes arrive.
    const chunks = Array.from({ length: 40 }, () => new Uint8Array(MB).fill(0x61));
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.pop();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const streamed = await post(admin, 'multipart/form-data; boundary=frontiera', stream, { duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  test('a non-administrator is refused without the body being parsed; the page still opens for both', async () => {
    const refused = await post(user, 'multipart/form-data; boundary=frontiera', '--frontiera\r\nnu este un formular');
    expect(refused.status).toBe(200);
    expect(refused.text).toContain('Doar administratorii pot porni reconstruirea arhivei de ansamblu sau o copie de siguranță.');
    for (const who of [user, admin]) {
      const r = await page('/infrastructura-harti', who);
      expect(r.status).toBe(200);
      expect(r.text).toContain('Infrastructură hărți');
    }
  });
});

describe('the sync pages read SIRUTA and the owner searched for as the API does', () => {
  test('a SIRUTA past int4 is a 400 that says why on the search tab and the dashboard, where it was "an unexpected error"', async () => {
    for (const path of ['/parcel-sync?tab=search&siruta=99999999999&cad=123', '/parcel-sync/dashboard?siruta=99999999999', '/parcel-sync/dashboard?siruta=-4']) {
      const r = await page(path, user);
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
      expect(r.text).toContain('Codul SIRUTA din adresă nu este valid');
      expect(r.text).not.toContain('A apărut o eroare neașteptată');
    }
    // The API's own answer to the same value.
    expect((await page('/api/landreg/uat-dashboard?siruta=99999999999', user)).status).toBe(400);
    // The sync tab only preselects a UAT: it opens without the unreadable one.
    expect((await page('/parcel-sync?siruta=99999999999', user)).status).toBe(200);
  });

  test('the sync tab’s search of the store’s UATs drops a NUL (it was a 500) and cuts a long one, as the registry’s does', async () => {
    /** What the page's search box holds (its value attribute, absent when empty). */
    const searched = (html: string) => /<input[^>]*data-testid="sync-uats-q"[^>]*>/.exec(html)?.[0].match(/ value="([^"]*)"/)?.[1] ?? '';
    const nul = await page('/parcel-sync?uatQ=Sat%00x', user);
    expect(nul.status).toBe(200);
    expect(nul.text).toContain('data-testid="sync-uats-q"');
    expect(searched(nul.text)).toBe('');
    const long = await page(`/parcel-sync?uatQ=${'x'.repeat(300)}`, user);
    expect(long.status).toBe(200);
    expect(searched(long.text)).toBe('x'.repeat(100));
  });

  test('an owner name with NUL or past 200 characters is a 400 that says why, before any portal call', async () => {
    for (const [owner, why] of [['a%00b', 'caracter nepermis'], ['x'.repeat(201), 'mai mult de 200 de caractere']]) {
      const r = await page(`/parcel-sync?tab=search&siruta=42708&owner=${owner}`, user);
      expect(r.status).toBe(400);
      expect(r.text).toContain(why);
    }
  });

  test('"Îmbogățește acum" on an address that names no parcel is a 404, as the page itself', async () => {
    const res = await fetch(`${base}/parcel-sync/parcel/not-a-uuid?_data=routes%2Fparcel-sync_.parcel.%24id`, { method: 'POST', headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(res.status).toBe(404);
    expect((await page('/parcel-sync/parcel/not-a-uuid', user)).status).toBe(404);
  });
});

describe('the utilities page reads only the tab it shows', () => {
  test("the address book's contacts reach the page only on its tab, not with the tag manager or the vault", async () => {
    const email = `agenda-${Date.now()}@client-proba.ro`;
    await app.store.pool.query(`INSERT INTO contacts (name, company, email, phone) VALUES ('Maria Contact Probă', 'B', $1, '0722 000 111')`, [email]);
    try {
      for (const path of ['/utilitare', '/utilitare?tab=etichete', '/utilitare?tab=seif']) {
        const r = await app.get(path, user);
        expect({ path, status: r.status }).toEqual({ path, status: 200 });
        expect({ path, leaked: r.text.includes(email) }).toEqual({ path, leaked: false });
      }
      const agenda = await app.get('/utilitare?tab=agenda', user);
      expect(agenda.status).toBe(200);
      expect(agenda.text).toContain(email);
    } finally {
      await app.store.pool.query(`DELETE FROM contacts WHERE email = $1`, [email]);
    }
  });
});
