/**
 * Pages as an office browser meets them (issue 30): in Romania's time zone, every page the
 * server renders with dates hydrates without a mismatch (server and browser format dates on
 * Romanian time through web/app/lib/dates.ts), so the page logs no error; and /favicon.ico is a
 * real icon served to anyone, never a detour through sign-in. Screenshots in test-results/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { E2E_BASE_URL, launchChromium, openSignedIn } from '../helpers/e2e';
import { projectRoot } from '../../domain/config';
import { closePool, getPool } from '../../domain/db/pool';
import { notify } from '../../domain/notifications/notify';

const USER = { email: 'dan@birou.ro', password: 'parola-dan' };
const SCREENSHOTS = path.join(projectRoot, 'test-results');
const KEY = `e2e:romanian-time:${Date.now()}`;
/** Pages that show dates from the server: the inbox, the sync tab and its dashboard, the office tools, the registry. */
const PAGES = ['/notificari', '/parcel-sync', '/parcel-sync/dashboard', '/utilitare', '/registratura', '/parcel-sync/weekend'];

describe('pages in Romania\'s time zone', () => {
  let browser: Browser;
  let userId: string | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (userId) await getPool().query(`DELETE FROM notifications WHERE user_id = $1 AND idempotency_key LIKE $2`, [userId, `${KEY}%`]);
    await closePool();
  });

  test('/favicon.ico is an icon for anyone, without sign-in', async () => {
    const res = await fetch(`${E2E_BASE_URL}/favicon.ico`, { redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    const bytes = Buffer.from(await res.arrayBuffer());
    // ICO header: reserved 0, type 1 (icon), at least one image.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2)]).toEqual([0, 1]);
    expect(bytes.readUInt16LE(4)).toBeGreaterThan(0);
  });

  test('each page hydrates without an error, its dates on Romanian time', async () => {
    const { context, page, errors, consoleErrors } = await openSignedIn(browser, '/notificari', USER);
    const dir = await getPool().query<{ id: string }>(`SELECT id FROM app_users WHERE email = $1 AND id NOT LIKE 'test-%'`, [USER.email]);
    userId = dir.rows[0].id;
    // A notification written just before midnight UTC: on Romanian time it is already the next day (or 01:xx/02:xx).
    await notify(getPool(), null, { userId, type: 'registry-deadline', title: 'Termen de probă pentru fusul orar', body: 'Verificare.', idempotencyKey: `${KEY}:1` });
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    for (const p of PAGES) {
      await page.goto(`${E2E_BASE_URL}${p}`, { waitUntil: 'networkidle' });
      expect(new URL(page.url()).pathname).toBe(p);
      await page.screenshot({ path: path.join(SCREENSHOTS, `romanian-time${p.replace(/\//g, '-')}.png`) });
    }
    // The inbox's time of the new notification is the browser's (Romanian) clock time, as the server rendered it.
    await page.goto(`${E2E_BASE_URL}/notificari`, { waitUntil: 'networkidle' });
    const shown = await page.getByTestId('notification').filter({ hasText: 'Termen de probă pentru fusul orar' }).innerText();
    const browserTime = await page.evaluate(() => new Intl.DateTimeFormat('ro-RO', { hour: '2-digit', minute: '2-digit' }).format(new Date()));
    expect(shown).toContain(browserTime.slice(0, 2));
    expect(errors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 180_000);
});
